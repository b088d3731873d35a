"""`--pipeline` parsed in mlir-opt's grammar (verify.lowerings.pass_pipeline).

The parser is checked form by form, and against the real mlir-opt-19: what
it accepts, mlir-opt accepts once wrapped; what it refuses, mlir-opt refuses
too.  Then the uses through the real CLI: a pipeline written inside
`builtin.module(...)` is not wrapped twice, a gpu-to-llvm with options is
still gpu-to-llvm, and a pass one version lacks makes that version
not-applicable instead of refusing the run.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering, top_level_passes
from gpu_alloc_verify.verify.lowerings.pass_pipeline import Anchor, Pass, PipelineSyntaxError, parse
from gpu_alloc_verify.verify.lowerings.tool_passes import tool_passes
from tests.conftest import SYNC_SHARED, need_mlir_opt

ROOT = Path(__file__).parents[2]
KERNELS = ROOT / "tests" / "corpus" / "seed_sync_host_shared.mlir"  # has a gpu.module
# Only 19 and 22 have it (measured with `mlir-opt-N --help`); a func.func pass
# that leaves host code as it is.
NEWER_PASS = "gpu-eliminate-barriers"

# -- the grammar, form by form ----------------------------------------------------

FORMS = [
    # text, canonical text inside builtin.module, (anchors, pass) of each pass
    ("gpu-to-llvm", "gpu-to-llvm", [((), "gpu-to-llvm")]),
    ("gpu-to-llvm{use-bare-pointers-for-kernels=true}",
     "gpu-to-llvm{use-bare-pointers-for-kernels=true}",
     [((), "gpu-to-llvm{use-bare-pointers-for-kernels=true}")]),
    ("canonicalize{max-iterations=3 region-simplify=normal},cse",
     "canonicalize{max-iterations=3 region-simplify=normal},cse",
     [((), "canonicalize{max-iterations=3 region-simplify=normal}"), ((), "cse")]),
    ("x{a={b=1 c={d}} e=2}", "x{a={b=1 c={d}} e=2}", [((), "x{a={b=1 c={d}} e=2}")]),
    ("canonicalize{}", "canonicalize{}", [((), "canonicalize{}")]),
    ("gpu.module(convert-gpu-to-nvvm),gpu-to-llvm", "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
     [(("gpu.module",), "convert-gpu-to-nvvm"), ((), "gpu-to-llvm")]),
    ("builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)",
     "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
     [(("gpu.module",), "convert-gpu-to-nvvm"), ((), "gpu-to-llvm")]),
    ("builtin.module(builtin.module(cse))", "builtin.module(cse)",
     [(("builtin.module",), "cse")]),
    ("func.func(gpu-async-region,canonicalize),any(cse)",
     "func.func(gpu-async-region,canonicalize),any(cse)",
     [(("func.func",), "gpu-async-region"), (("func.func",), "canonicalize"),
      (("any",), "cse")]),
    ("gpu.module(gpu.func(canonicalize))", "gpu.module(gpu.func(canonicalize))",
     [(("gpu.module", "gpu.func"), "canonicalize")]),
    ("  builtin.module (  func.func ( gpu-async-region ) ,\n gpu-to-llvm { a=1 } )  ",
     "func.func(gpu-async-region),gpu-to-llvm{ a=1 }",
     [(("func.func",), "gpu-async-region"), ((), "gpu-to-llvm{ a=1 }")]),
    ("", "", []),
    ("builtin.module()", "", []),
]


@pytest.mark.parametrize("text, canonical, flat", FORMS)
def test_forms_parse_print_and_flatten(text: str, canonical: str, flat: list) -> None:
    p = parse(text)
    assert p.text() == canonical
    assert p.wrapped() == f"builtin.module({canonical})"
    assert [(x.anchors, x.pass_.text()) for x in p.passes()] == flat
    assert parse(p.wrapped()) == p  # printed back, it parses to the same tree


def test_tree_shape() -> None:
    p = parse("func.func(a{o=1}),b")
    assert p.elements == (Anchor("func.func", (Pass("a", "o=1"),)), Pass("b"))
    assert p.pass_names() == ["a", "b"]


def test_top_level_passes_drop_the_outer_module_once() -> None:
    assert top_level_passes("builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)") \
        == ["gpu.module(convert-gpu-to-nvvm)", "gpu-to-llvm"]
    assert top_level_passes("func.func(gpu-async-region) , gpu-to-llvm") \
        == ["func.func(gpu-async-region)", "gpu-to-llvm"]


ERRORS = [
    # text, column, words in the message
    ("a,,b", 3, "expected a pass or op name"),
    ("gpu-to-llvm,", 13, "found the end"),
    (",gpu-to-llvm", 1, "expected a pass or op name"),
    ("func.func()", 11, "empty pipeline in 'func.func(...)'"),
    ("func.func(cse) canonicalize", 16, "expected ',' or ')' after 'func.func'"),
    ("func.func(cse))", 15, "unbalanced ')'"),
    ("func.func(cse", 10, "'(' of 'func.func(' is never closed"),
    ("gpu-to-llvm{use-bare-pointers-for-kernels=true", 12, "missing '}'"),
    ("func.func{x=1}(cse)", 15, "expected ',' or ')' after 'func.func'"),
    ("canonicalize},cse", 13, "unbalanced '}'"),
    ("can onicalize", 5, "after 'can'"),
    ("func.func(cse){a=1}", 15, "expected ',' or ')'"),
]


@pytest.mark.parametrize("text, column, words", ERRORS)
def test_malformed_text_is_one_line_with_the_column(text: str, column: int, words: str
                                                     ) -> None:
    with pytest.raises(PipelineSyntaxError) as e:
        parse(text)
    assert e.value.column == column
    assert str(e.value).startswith(f"column {column}: ")
    assert words in str(e.value) and "\n" not in str(e.value)


# -- the same answers as mlir-opt itself ----------------------------------------------

def _mlir_opt_accepts(tool: str, wrapped: str) -> bool:
    proc = subprocess.run([tool, f"--pass-pipeline={wrapped}"], input="module {}\n",
                          capture_output=True, text=True, timeout=60)
    return proc.returncode == 0


@pytest.mark.parametrize("text", [
    "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
    "builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)",
    "  builtin.module (  func.func ( gpu-async-region ) ,\n gpu-to-llvm { use-bare-pointers-for"
    "-kernels=true } )  ",
    "canonicalize{max-iterations=3 region-simplify=normal},cse,any(cse)",
    "builtin.module()",
])
def test_what_parses_mlir_opt_accepts_once_wrapped(text: str) -> None:
    tool = need_mlir_opt(19)
    assert _mlir_opt_accepts(tool, parse(text).wrapped())


@pytest.mark.parametrize("text", [t for t, _, _ in ERRORS]
                         + ["cse,,cse"])
def test_what_is_malformed_mlir_opt_refuses(text: str) -> None:
    tool = need_mlir_opt(19)
    assert not _mlir_opt_accepts(tool, f"builtin.module({text})")


# -- which pass runs before gpu-to-llvm on host code ---------------------------------

@pytest.mark.parametrize("text, rewrites", [
    ("gpu.module(convert-gpu-to-nvvm),gpu-to-llvm", False),
    ("builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)", False),
    ("func.func(gpu-async-region),gpu-to-llvm", True),
    ("func.func(gpu-async-region),gpu-to-llvm{use-bare-pointers-for-kernels=true}", True),
    ("builtin.module(func.func(gpu-async-region),gpu-to-llvm{use-bare-pointers-for-kernels="
     "true})", True),
    ("gpu-kernel-outlining,gpu-to-llvm", True),
    ("convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm", True),
    ("gpu.module(gpu.func(canonicalize)),gpu-to-llvm", False),
    ("gpu-to-llvm,func.func(gpu-async-region)", False),  # after it: not its input
    ("func.func(gpu-async-region)", False),  # no gpu-to-llvm at all
    ("func.func(gpu-to-llvm-extra),canonicalize", False),
    # runs host passes (canonicalize, cse, convert-scf-to-cf, ...) before its own gpu-to-llvm
    ("gpu-lower-to-nvvm-pipeline{cubin-format=isa}", True),
])
def test_rewrites_source(text: str, rewrites: bool) -> None:
    assert parse(text).rewrites_source() is rewrites


# -- which passes a binary has ---------------------------------------------------------

def test_tool_passes_asks_each_binary() -> None:
    tools = {v: need_mlir_opt(v) for v in (16, 19, 22)}
    passes = {v: tool_passes(t) for v, t in tools.items()}
    for v, names in passes.items():
        assert names is not None and {"gpu-to-llvm", "gpu-async-region"} <= names, v
        assert "verify-each" not in names  # a global option, not a pass
    assert NEWER_PASS not in passes[16]  # type: ignore[operator]
    assert NEWER_PASS in passes[19] and NEWER_PASS in passes[22]  # type: ignore[operator]
    assert "gpu-lower-to-nvvm-pipeline" in passes[22]  # type: ignore[operator]


def test_a_binary_that_lists_no_passes_decides_nothing() -> None:
    assert tool_passes("/bin/true") is None
    lowering = MlirOptLowering("mlir-opt:/bin/true", "/bin/true", f"func.func({NEWER_PASS})")
    assert lowering.unavailable() is None


# -- through the real CLI --------------------------------------------------------------

def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    rc = main(["check", *argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_pipeline_inside_builtin_module_is_wrapped_once(capsys) -> None:
    need_mlir_opt(19)
    plain = _check(capsys, str(KERNELS), "--lowering", "mlir-opt-19", "--pipeline",
                   "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm")
    wrapped = _check(capsys, str(KERNELS), "--lowering", "mlir-opt-19", "--pipeline",
                     "builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)")
    assert wrapped[0] == 0 and wrapped[1]["violations"] == []
    assert wrapped[1]["by_lowering"] == plain[1]["by_lowering"]
    assert wrapped[1]["by_lowering"]["mlir-opt-19"]["lowering-complete"]["holds"] == 1


def test_wrapping_twice_would_lower_nothing(capsys) -> None:
    # What the old string handling did: the nested module is never run.
    need_mlir_opt(19)
    rc, out = _check(capsys, str(KERNELS), "--lowering", "mlir-opt-19", "--pipeline",
                     "builtin.module(builtin.module(gpu.module(convert-gpu-to-nvvm),"
                     "gpu-to-llvm))")
    assert rc == 1
    assert "lowering-complete" in {v["invariant"] for v in out["violations"]}


@pytest.mark.parametrize("gpu_to_llvm", ["gpu-to-llvm",
                                         "gpu-to-llvm{use-bare-pointers-for-kernels=true}"])
def test_gpu_to_llvm_with_options_is_gpu_to_llvm(tmp_path: Path, capsys,
                                                 gpu_to_llvm: str) -> None:
    need_mlir_opt(19)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc = main(["check", str(f), "--lowering", "mlir-opt-19", "--pipeline",
               f"func.func(gpu-async-region),{gpu_to_llvm}"])
    out = capsys.readouterr().out
    # gpu-async-region rewrote the source: the lowering-specific invariants
    # are judged against the IR entering gpu-to-llvm.
    assert "judged against the IR entering gpu-to-llvm" in out
    # DESIGN.md: the sync host_shared alloc made async leaves a stream undestroyed.
    assert rc == 1 and "stream-no-leak" in out


def test_pass_one_version_lacks_is_not_applicable_there(tmp_path: Path, capsys) -> None:
    for v in (16, 19, 22):
        need_mlir_opt(v)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    pipeline = f"func.func({NEWER_PASS}),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
    rc = main(["check", str(f), "--pipeline", pipeline, "--json", "--lowering", "mlir-opt-16",
               "--lowering", "mlir-opt-19", "--lowering", "mlir-opt-22"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert rc == 0, captured.err
    old = out["by_lowering"]["mlir-opt-16"]
    assert all(c["not-applicable"] == 1 and sum(c.values()) == 1 for c in old.values())
    for v in (19, 22):
        per = out["by_lowering"][f"mlir-opt-{v}"]
        assert per["sync-alloc-no-stream"]["holds"] == 1
        assert per["stream-no-leak"]["holds"] == 1
    rc = main(["check", str(f), "--pipeline", pipeline, "--lowering", "mlir-opt-16",
               "--lowering", "mlir-opt-22"])
    text = capsys.readouterr().out
    assert f"not-applicable: mlir-opt-16 has no pass {NEWER_PASS}" in text


def test_a_pass_no_installed_version_has_is_still_a_usage_error(tmp_path: Path,
                                                                capsys) -> None:
    need_mlir_opt(19)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc = main(["check", str(f), "--lowering", "mlir-opt-19", "--pipeline",
               "func.func(gpu-async-regoin),gpu-to-llvm"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "gpu-async-regoin" in err and len(err.splitlines()) == 1


def test_malformed_pipeline_is_a_usage_error_with_the_column(tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc = main(["check", str(f), "--lowering", "mlir-opt-19", "--pipeline",
               "func.func(gpu-async-region,gpu-to-llvm"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1
    assert "column 10: '(' of 'func.func(' is never closed" in err


def test_top_level_passes_keeps_malformed_recorded_text_whole() -> None:
    # triage names campaigns by their recorded pipeline; it never refuses one.
    assert top_level_passes("func.func(cse") == ["func.func(cse"]
