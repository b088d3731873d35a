"""One tool layer (issue 39, item 4): every command line of MLIR's tools is
spelled in `verify/tools/commands.py`, and a lowering says which tool reads
texts for it, so no module writes a flag or picks the newest mlir-opt itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.tools import commands
from gpu_alloc_verify.verify.tools.commands import (
    filecheck_argv,
    jit_runner_argv,
    lit_run_line,
    lit_run_pipeline,
    mlir_opt_argv,
    mlir_translate_argv,
    module_pipeline,
)

PKG = Path(__file__).resolve().parents[2] / "gpu_alloc_verify"
# The tool layer itself: the only module that spells a tool's flags.
TOOL_LAYER = {"verify/tools/commands.py"}
# Where the newest mlir-opt may be looked up (`find_mlir_opt()` without a
# version): the lookup itself, the reader no lowering names, and the
# registry's choice of the default lowering.
NEWEST_LOOKUP = {"verify/tools/runner.py", "verify/tools/commands.py",
                 "verify/lowerings/registry.py"}
# Flags of mlir-opt, mlir-translate, the JIT runners and FileCheck (one dash
# or two: the tools take both).
_FLAGS = ("pass-pipeline", "split-input-file", "mlir-to-llvmir", "mlir-print-",
          "allow-unregistered-dialect", "verify-each", "entry-point-result", "shared-libs",
          "check-prefix")
_TOOLS = ("mlir-opt", "mlir-translate", "mlir-cpu-runner", "mlir-runner", "FileCheck")


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _argparse_options(tree: ast.AST) -> set[int]:
    """String arguments of `add_argument(...)`: a command's own options
    (`repro.lower_tool` takes mlir-opt's), not a command line it builds."""
    return {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
            for arg in node.args}


def _leading_text(node: ast.AST) -> str | None:
    """A string literal's text, or an f-string's literal start."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def tool_lines_built(tree: ast.AST) -> list[str]:
    """What in a module spells a tool's command line: a string that starts
    with one of the tools' flags, an argv list that starts with a tool's
    name, or a lookup of the newest mlir-opt (`find_mlir_opt()`)."""
    skip = _docstrings(tree) | _argparse_options(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        # An f-string's literal parts are constants of their own: walked too.
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith("-") and node.value.lstrip("-").startswith(_FLAGS):
            found.append(f"line {node.lineno}: {node.value[:40]!r}")
        if isinstance(node, ast.List) and node.elts:
            first = _leading_text(node.elts[0])
            if first in _TOOLS:
                found.append(f"line {node.lineno}: argv starting with {first!r}")
        if isinstance(node, ast.Call) and not node.args and not node.keywords and (
                (isinstance(node.func, ast.Name) and node.func.id == "find_mlir_opt")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "find_mlir_opt")):
            found.append(f"line {node.lineno}: find_mlir_opt()")
    return found


def test_no_module_outside_the_tool_layer_spells_a_command_line() -> None:
    offenders: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = str(path.relative_to(PKG))
        if rel in TOOL_LAYER:
            continue
        found = tool_lines_built(ast.parse(path.read_text(encoding="utf-8")))
        if rel in NEWEST_LOOKUP:
            found = [f for f in found if not f.endswith("find_mlir_opt()")]
        if found:
            offenders[rel] = found
    assert not offenders, offenders


@pytest.mark.parametrize("code", [
    'cmd = [tool, "--split-input-file", "-"]',
    'run_tool([path, f"--pass-pipeline=builtin.module({p})"], timeout_s=1)',
    '_PRINT = ("--mlir-print-debuginfo", "--mlir-print-local-scope")',
    'argv = [translate, "-mlir-to-llvmir"]',
    'run_tool(["mlir-opt", path], timeout_s=1)',
    'tool = find_mlir_opt()',
    'tool = tools.find_mlir_opt()',
    'x = f"--shared-libs={lib}"',
])
def test_the_scan_catches_a_planted_command_line(code: str) -> None:
    assert tool_lines_built(ast.parse(code)), code


@pytest.mark.parametrize("code", [
    'def f():\n    """Runs `mlir-opt --pass-pipeline=...`."""',
    'parser.add_argument("--pass-pipeline", default="")',
    'tool = find_mlir_opt(19)',
    'names = (f"mlir-translate-{v}", "mlir-opt-19")',
    'missing = [n for n, p in (("mlir-opt", opt), ("a C compiler", cc)) if p is None]',
    'msg = "the rerun with --verify-each=0 did not finish"',
])
def test_the_scan_leaves_what_builds_no_command_line(code: str) -> None:
    assert not tool_lines_built(ast.parse(code)), code


def test_command_lines_keep_their_spelling() -> None:
    """The argv each caller ran before the layer existed, flag for flag."""
    assert mlir_opt_argv("opt", generic=True, locations=True, unregistered=True, stdin=True) == [
        "opt", "--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope",
        "--allow-unregistered-dialect", "-"]
    assert mlir_opt_argv("opt", split_input_file=True, generic=True, locations=True,
                         unregistered=True, stdin=True)[:2] == ["opt", "--split-input-file"]
    assert mlir_opt_argv("opt", input_file="in.mlir", pipeline=module_pipeline("a,b"),
                         locations=True) == [
        "opt", "in.mlir", "--pass-pipeline=builtin.module(a,b)", "--mlir-print-debuginfo",
        "--mlir-print-local-scope"]
    assert mlir_opt_argv("opt") == ["opt"]
    assert mlir_translate_argv("tr") == ["tr", "--mlir-to-llvmir"]
    assert mlir_translate_argv("tr", "m.mlir", "m.ll") == ["tr", "--mlir-to-llvmir", "m.mlir",
                                                           "-o", "m.ll"]
    assert jit_runner_argv("run", "m.mlir", "main", ["/s.so"]) == [
        "run", "m.mlir", "-e", "main", "-entry-point-result=void", "--shared-libs=/s.so"]
    assert filecheck_argv("fc", "t.mlir", "WITNESS") == ["fc", "t.mlir", "--check-prefix=WITNESS"]


def test_an_mlir_opt_lowering_runs_its_pipeline_in_one_split_process() -> None:
    lowering = MlirOptLowering("mlir-opt:/x/mlir-opt", "/x/mlir-opt", "gpu-to-llvm")
    assert lowering.command() == [
        "/x/mlir-opt", "--split-input-file", "--pass-pipeline=builtin.module(gpu-to-llvm)",
        "--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope",
        "--allow-unregistered-dialect"]
    async_region = MlirOptLowering("s", "/x/mlir-opt", "func.func(gpu-async-region),gpu-to-llvm")
    assert "--mlir-print-ir-before=gpu-to-llvm" in async_region.command()


def test_the_lit_run_line_is_upstreams() -> None:
    line = lit_run_line("gpu-to-llvm")
    assert line == ("// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)'"
                    " | FileCheck %s")
    for pipeline in ("gpu-to-llvm", "func.func(gpu-async-region),gpu-to-llvm"):
        assert lit_run_pipeline(lit_run_line(pipeline) + "\n// CHECK: x\n") == pipeline
    assert lit_run_pipeline("// RUN: mlir-opt %s | FileCheck %s") == "gpu-to-llvm"


def test_a_lowering_says_which_tool_reads_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    own = MlirOptLowering("mlir-opt:/x/mlir-opt", "/x/mlir-opt")
    assert (own.reading_tool(), own.external_tool()) == ("/x/mlir-opt", "/x/mlir-opt")
    xdsl_lowering = pytest.importorskip("gpu_alloc_verify.verify.lowerings.xdsl_lowering")
    embedded = xdsl_lowering.resolve_xdsl("xdsl:pr69969")
    monkeypatch.setattr(commands, "find_mlir_opt", lambda version=None: "/newest/mlir-opt")
    assert (embedded.reading_tool(), embedded.external_tool()) == ("/newest/mlir-opt", None)
    monkeypatch.setattr(commands, "find_mlir_opt", lambda version=None: None)
    assert embedded.reading_tool() is None
