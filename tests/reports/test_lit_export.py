"""lit reproducers: they fail on the buggy lowering and pass on a fixed one."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reports.irtext import parse_calls, parse_source
from reports.lit_export import export_lit, find_filecheck, reproducer_text, write_lit_config

HAVE_LIT = importlib.util.find_spec("lit") is not None
FILECHECKS = {
    name: path
    for name, path in (
        ("llvm", next((shutil.which(n) for n in ("FileCheck", "FileCheck-19", "FileCheck-14")
                       if shutil.which(n)), None)),
        ("python", shutil.which("filecheck")),
    )
    if path
}

LEAK_LOWERED = """\
module {
  llvm.func @f0() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op0")
    %1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
}
"""


def record(invariant: str, program: str, lowered: str = "", **kw: Any) -> dict[str, Any]:
    rec = {"id": "c-v0", "invariant": invariant, "lowering": "mlir-opt-19",
           "pipeline": "gpu-to-llvm", "program": program, "lowered": lowered,
           "detail": "d", "counterexample": {}, "marked_calls": []}
    rec.update(kw)
    return rec


def directives(text: str) -> list[str]:
    return [ln for ln in text.splitlines()
            if re.match(r"// [A-Z0-9]+(-[A-Z0-9]+)*: ", ln) and not ln.startswith("// NOTE")]


# ---- unit tests: no tools needed ------------------------------------------------------


def test_parse_source_ops_and_awaited_tokens(programs: dict[str, str]) -> None:
    src = parse_source(programs["stream"])
    assert src.functions == ["f0"]
    assert [(op.name, op.id, op.is_async, op.token) for op in src.ops] == [
        ("gpu.wait", "op0", True, "%t0"), ("gpu.alloc", "op1", True, "%t1"),
        ("gpu.dealloc", "op2", True, "%t2"), ("gpu.wait", "op3", False, None)]
    assert src.ops[1].deps == ["%t0"]
    assert src.awaited_tokens() == {"%t0", "%t1", "%t2"}
    assert not src.branches
    branch = parse_source(programs["branch"])
    assert branch.branches and branch.ops[0].host_shared and not branch.ops[0].is_async


def test_parse_calls_generic_and_custom() -> None:
    generic = ('    %8 = "llvm.call"(%5, %0, %7) <{CConv = #llvm.cconv<ccc>, '
               'callee = @mgpuMemAlloc, fastmathFlags = #llvm.fastmath<none>}> '
               ': (i64, !llvm.ptr, i8) -> !llvm.ptr loc("p3/op1")')
    [call] = parse_calls(generic)
    assert (call.result, call.callee, call.operands, call.loc) == (
        "%8", "mgpuMemAlloc", ["%5", "%0", "%7"], "op1")
    calls = parse_calls(LEAK_LOWERED)
    assert [(c.func, c.callee, c.loc) for c in calls] == [
        ("f0", "mgpuStreamCreate", "op0"), ("f0", "mgpuStreamCreate", "op4"),
        ("f0", "mgpuStreamSynchronize", "op3")]


def test_leak_check_is_a_negated_bug_pattern(programs: dict[str, str]) -> None:
    program = programs["stream"].replace(
        "    return", '    %t9 = gpu.wait async loc("op4")\n    return')
    text = reproducer_text(record("stream-no-leak", program, LEAK_LOWERED))
    # op4's token is never awaited, so only op0's stream must be destroyed.  The leak
    # pattern (a create at op0 with no destroy of it) must no longer match; a sanity
    # run checks the output still holds the function.
    assert directives(text) == [
        "// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s",
        "// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' "
        "--mlir-print-debuginfo --mlir-print-local-scope | not FileCheck %s "
        "--check-prefix=LEAK",
        "// CHECK-LABEL: @f0(",
        "// LEAK-LABEL: @f0(",
        '// LEAK: %[[R:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate(){{.*}}loc("op0")',
        "// LEAK-NOT: llvm.call @mgpuStreamDestroy(%[[R]])",
    ]
    assert text.rstrip().endswith(program.rstrip())


def test_marked_calls_choose_the_streams_one_run_each(programs: dict[str, str]) -> None:
    text = reproducer_text(record("stream-no-leak", programs["stream"], LEAK_LOWERED,
                                  marked_calls=["op0", "op4"]))
    runs = [ln for ln in text.splitlines() if ln.startswith("// RUN:")]
    assert [r.rsplit(" ", 1)[-1] for r in runs] == ["%s", "--check-prefix=LEAK0",
                                                    "--check-prefix=LEAK1"]
    assert '// LEAK1: %[[R:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate(){{.*}}loc("op4")' \
        in text


def test_use_after_destroy_pattern(programs: dict[str, str]) -> None:
    lowered = LEAK_LOWERED.replace("mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc(\"op3\")",
                                   "mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc(\"op3\")\n"
                                   "    llvm.call @mgpuMemFree(%9, %0) : () -> ()")
    text = reproducer_text(record("stream-no-use-after-destroy", programs["stream"], lowered))
    assert directives(text)[-3:] == [
        '// UAD: %[[R:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate(){{.*}}loc("op0")',
        "// UAD: llvm.call @mgpuStreamDestroy(%[[R]])",
        "// UAD: %[[R]]{{[,): ]}}",
    ]


def test_twice_and_borrow_patterns(programs: dict[str, str]) -> None:
    twice = LEAK_LOWERED.replace(
        "mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc(\"op3\")",
        "mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc(\"op3\")\n"
        "    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc(\"op3\")")
    text = reproducer_text(record("stream-no-leak", programs["stream"], twice,
                                  counterexample={"source_op": "op0", "destroy_count": 2}))
    assert directives(text)[-3:] == [
        '// TWICE: %[[R:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate(){{.*}}loc("op0")',
        "// TWICE: llvm.call @mgpuStreamDestroy(%[[R]])",
        "// TWICE: llvm.call @mgpuStreamDestroy(%[[R]])",
    ]
    borrowed = ('%0 = "llvm.call"() <{callee = @mgpuStreamCreate}> : () -> !llvm.ptr loc("op0")\n'
                '%8 = "llvm.call"(%5, %0, %7) <{callee = @mgpuMemAlloc}> : (i64, !llvm.ptr, i8)'
                ' -> !llvm.ptr loc("op1")\n')
    text = reproducer_text(record("sync-alloc-no-stream", programs["mixed"], borrowed,
                                  marked_calls=["op1"]))
    assert "| not FileCheck %s --check-prefix=BORROW" in text
    assert ('// BORROW: llvm.call @mgpuMemAlloc(%{{[0-9a-zA-Z_]+}}, %[[S]]{{[,)]}}{{.*}}'
            'loc("op1")') in text
    assert '// CHECK-NOT: llvm.call @mgpuStreamCreate(){{.*}}loc("op1")' in text


def test_sync_alloc_checks(programs: dict[str, str]) -> None:
    text = reproducer_text(record("sync-alloc-no-stream", programs["shared"]))
    assert "// CHECK-NOT: llvm.call @mgpuStreamCreate" in directives(text)
    assert "--mlir-print-debuginfo" not in text  # no loc needed: nothing async at all
    mixed = programs["shared"].replace(
        "    return", '    %t0 = gpu.wait async loc("op1")\n    return')
    text = reproducer_text(record("sync-alloc-no-stream", mixed))
    assert '// CHECK-NOT: llvm.call @mgpuStreamCreate(){{.*}}loc("op0")' in text
    assert "--mlir-print-debuginfo --mlir-print-local-scope" in text


def test_host_shared_flag_and_complete_checks(programs: dict[str, str]) -> None:
    text = reproducer_text(record("host-shared-flag", programs["branch"], marked_calls=["op1"]))
    assert '// CHECK: %[[F0:[0-9a-zA-Z_]+]] = llvm.mlir.constant(1 : i8) : i8{{.*}}loc("op1")' \
        in text
    assert '// CHECK: llvm.call @mgpuMemAlloc{{(Async)?}}({{.*}}%[[F0]]){{.*}}loc("op1")' in text
    assert "NOTE: the program branches" in text
    text = reproducer_text(record("lowering-complete", programs["sync"]))
    assert '// CHECK-NOT: {{[ "!]gpu\\.[a-z_]+}}' in text
    assert "// CHECK-NOT: unrealized_conversion_cast" in text


def test_free_text_cannot_become_a_directive(programs: dict[str, str]) -> None:
    rec = record("differential", programs["stream"],
                 detail="x RUN: rm -rf / CHECK: y\nCHECK-NOT: z",
                 counterexample={"path": {"f0:%cond0": False}, "schedule": ["END.", "S0: a"]})
    text = reproducer_text(rec)
    assert len([ln for ln in text.splitlines() if "RUN:" in ln]) == 1
    assert "CHECK: y" not in text and "CHECK-NOT: z" not in text and "END." not in text
    assert "// Path: f0:%cond0 = false" in text
    assert "no textual check could be derived" in text  # no marked call to pin


def test_export_writes_sanitized_file(tmp_path: Path, programs: dict[str, str]) -> None:
    path = export_lit(record("stream-no-leak", programs["stream"], LEAK_LOWERED, id="a/b c:v1"),
                      tmp_path / "out")
    assert path.parent == tmp_path / "out" and path.name == "a_b_c_v1.mlir"
    assert path.read_text().startswith("// Reproducer for a/b c")


def test_lit_config_substitutes_whole_tool_names(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = write_lit_config(tmp_path, "/opt/my mlir-opt/bin/mlir-opt", filecheck="/x/FileCheck")
    # Execute the config as lit would, against stand-ins for lit's objects.
    formats = types.ModuleType("lit.formats")
    formats.ShTest = lambda **kw: None  # type: ignore[attr-defined]
    lit_mod = types.ModuleType("lit")
    lit_mod.formats = formats  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lit", lit_mod)
    monkeypatch.setitem(sys.modules, "lit.formats", formats)
    config = types.SimpleNamespace(substitutions=[])
    exec(compile(cfg.read_text(), str(cfg), "exec"), {"__file__": str(cfg), "config": config})
    line = "mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s"
    for pattern, repl in config.substitutions:
        line = re.sub(pattern, repl, line)
    assert line == ("'/opt/my mlir-opt/bin/mlir-opt' %s --pass-pipeline='builtin.module("
                    "gpu-to-llvm)' | /x/FileCheck %s")


def test_find_filecheck() -> None:
    if not FILECHECKS:
        pytest.skip("no FileCheck and no Python filecheck")
    assert find_filecheck() is not None


# ---- integration: lit, FileCheck and mlir-opt --------------------------------------------

# (scenario, invariant, program, pipeline, marked, buggy tool, fixed tool)
SCENARIOS = [
    ("leak", "stream-no-leak", "stream", "gpu-to-llvm", ["op0"], "drop-destroy", "real"),
    ("leak-unmarked", "stream-no-leak", "stream", "gpu-to-llvm", [], "drop-destroy", "real"),
    ("async-region-leak", "stream-no-leak", "shared",
     "func.func(gpu-async-region),gpu-to-llvm", [], "real", "plain-gpu-to-llvm"),
    ("sync-stream", "sync-alloc-no-stream", "shared",
     "func.func(gpu-async-region),gpu-to-llvm", ["op0"], "real", "plain-gpu-to-llvm"),
    ("flag", "host-shared-flag", "shared", "gpu-to-llvm", ["op0"], "flip-flag", "real"),
    ("flag-unmarked", "host-shared-flag", "branch", "gpu-to-llvm", [], "flip-flag", "real"),
    ("double-destroy", "stream-no-use-after-destroy", "stream", "gpu-to-llvm", [],
     "double-destroy", "real"),
    ("destroyed-twice", "stream-no-leak", "stream", "gpu-to-llvm", ["op0", "op3"],
     "double-destroy", "real"),
    ("borrowed-stream", "sync-alloc-no-stream", "mixed", "gpu-to-llvm", ["op1"],
     "borrow-stream", "real"),
    ("residue", "lowering-complete", "sync", "gpu-to-llvm", ["op0"], "real", "shared-alloc"),
    ("crash", "lowering-no-crash", "stream", "gpu-to-llvm", [], "crash", "real"),
]


def run_lit(dirs: list[Path], out: Path) -> dict[str, str]:
    """Run lit once over several suites; test file name -> result code."""
    subprocess.run([sys.executable, "-c", "import sys; from lit.main import main; main()",
                    "-q", "-o", str(out), *map(str, dirs)],
                   capture_output=True, text=True, timeout=300)
    tests = json.loads(out.read_text())["tests"]
    return {t["name"].rsplit(" :: ", 1)[-1]: t["code"] for t in tests}


@pytest.mark.skipif(not HAVE_LIT, reason="lit is not installed (pip install lit)")
@pytest.mark.skipif(not FILECHECKS, reason="no FileCheck (apt-get install llvm-14-tools or "
                    "pip install filecheck)")
@pytest.mark.parametrize("filecheck", sorted(FILECHECKS))
def test_reproducers_fail_on_buggy_and_pass_on_fixed(
        filecheck: str, tmp_path: Path, wrappers: dict[str, str], programs: dict[str, str],
        make_violation: Callable[..., dict[str, Any]]) -> None:
    dirs = []
    for name, invariant, program, pipeline, marked, buggy, fixed in SCENARIOS:
        rec = make_violation(f"{name}-v0", invariant, buggy, programs[program], pipeline=pipeline,
                             marked=marked)
        for role, tool in (("buggy", buggy), ("fixed", fixed)):
            d = tmp_path / f"{name}-{role}"
            export_lit({**rec, "id": f"{name}-{role}"}, d)
            write_lit_config(d, wrappers[tool], filecheck=FILECHECKS[filecheck])
            dirs.append(d)
    codes = run_lit(dirs, tmp_path / "lit.json")
    expected = {f"{s[0]}-{role}.mlir": code for s in SCENARIOS
                for role, code in (("buggy", "FAIL"), ("fixed", "PASS"))}
    assert codes == expected


@pytest.mark.skipif(not HAVE_LIT, reason="lit is not installed (pip install lit)")
@pytest.mark.skipif(not FILECHECKS, reason="no FileCheck")
def test_report_reproducers_rerun_against_real_mlir_opt(results_file: Path, tmp_path: Path,
                                                        wrappers: dict[str, str]) -> None:
    """The report's lit folder reruns as is: only the real tool's own bugs still fail."""
    from reports.html import render_report

    page = render_report(results_file, tmp_path / "report", mlir_opt=wrappers["real"])
    suite = page.parent / "lit" / "nightly-2"
    assert (suite / "lit.cfg.py").is_file()
    codes = run_lit([suite], tmp_path / "lit.json")
    assert codes == {
        "nightly-2-v0.mlir": "PASS",  # leak: made by a wrapper, mlir-opt-19 destroys it
        "nightly-2-v1.mlir": "FAIL",  # mlir-opt-19 leaves a sync gpu.alloc unconverted
        "nightly-2-v2.mlir": "PASS",  # flag: made by a wrapper
        "nightly-2-v3.mlir": "FAIL",  # gpu-async-region pipeline: a stream for a sync alloc
    }
