"""Issue 28, done-when: no lit test in an export or in `docs/findings-lit`
names a function outside the runtime table (verify/model/runtime_table.json).

A small real campaign (mlir-opt-19, through the command line's `fuzz
--report DIR`) exports its lit tests; every runtime function those tests
name, in their CHECK lines and in the IR their RUN line produces on the buggy
tool and on the reference lowering they are proven against, must be one the
runtime's wrapper exports at that LLVM version, with the arity it is called
with.  The helper is shown to catch names the table lacks (the split API's
proposals), so the check can fail.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.repro.export import run_pipeline
from gpu_alloc_verify.repro.proof import find_filecheck, lower_for_test
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.model import runtime_table
from gpu_alloc_verify.verify.model.runtime_api import is_real

ROOT = Path(__file__).resolve().parents[2]
FINDINGS_LIT = ROOT / "docs" / "findings-lit"
REFERENCE = "xdsl:reference"

needs_19 = pytest.mark.skipif(find_mlir_opt(19) is None or find_filecheck() is None,
                              reason="needs mlir-opt-19 and FileCheck")

# A call in custom form (`llvm.call @f(%a, %b)`, `func.call @f(...)`,
# `call @f(...)`) or generic form (`"llvm.call"(%a) <{callee = @f, ...}>`).
_CUSTOM_CALL = re.compile(r"(?<![\w.])(?:llvm\.call|func\.call|call)\s+@([\w$.]+)\(([^)]*)\)")
_GENERIC_CALL = re.compile(r'"(?:llvm|func)\.call"\(([^)]*)\)\s*<?\{[^}]*callee\s*=\s*@([\w$.]+)')
_CALLEE = re.compile(r"(?<![\w.])(?:llvm\.call|func\.call|call)\s+@([\w$.]+)")
_MGPU = re.compile(r"@(mgpu\w+)")
_DIRECTIVE = re.compile(r"//\s*CHECK[\w-]*:(.*)$", re.M)


def _runtime(name: str) -> bool:
    """A runtime wrapper's function: the upstream wrappers' prefix."""
    return name.startswith("mgpu")


def _arity(operands: str) -> int:
    return len([a for a in operands.split(",") if a.strip()])


def lowered_calls(lowered: str) -> set[tuple[str, int]]:
    """(callee, argument count) of every runtime function the lowered IR calls."""
    calls = {(m.group(1), _arity(m.group(2))) for m in _CUSTOM_CALL.finditer(lowered)}
    calls |= {(m.group(2), _arity(m.group(1))) for m in _GENERIC_CALL.finditer(lowered)}
    return {(name, n) for name, n in calls if _runtime(name)}


def check_line_names(test_text: str) -> set[str]:
    """Every runtime function a test's CHECK lines name (called or not)."""
    names: set[str] = set()
    for m in _DIRECTIVE.finditer(test_text):
        line = m.group(1)
        names |= {n for n in _CALLEE.findall(line) if _runtime(n)}
        names |= set(_MGPU.findall(line))
    return names


def outside_table(test_text: str, lowered: list[str], version: int,
                  runtime: str = "cuda") -> list[str]:
    """The runtime functions a lit test names that `runtime`'s wrapper at LLVM
    `version` does not export: in CHECK lines by name, in each lowered output
    by name and arity."""
    exported = runtime_table.exported(version, runtime)
    names = {fn.name for fn in exported}
    bad = [f"CHECK names @{n}" for n in sorted(check_line_names(test_text)) if n not in names]
    for text in lowered:
        bad += [f"lowered IR calls @{n} with {k} argument(s)"
                for n, k in sorted(lowered_calls(text)) if not is_real(n, k, version, runtime)]
    return bad


def _version_of(lowering: str) -> int:
    m = re.search(r"(\d+)$", lowering)
    return int(m.group(1)) if m else 19


def _platform_of(pipeline: str) -> str:
    return "hip" if "rocdl" in pipeline else "cuda"


def _violations_of(test: Path, buggy: str) -> tuple[list[str], set[tuple[str, int]]]:
    """What `outside_table` says of one exported test (its CHECK lines and the
    output of its RUN line on `buggy` and on the reference lowering), and the
    runtime calls those outputs make."""
    text = test.read_text(encoding="utf-8")
    pipeline = run_pipeline(text)
    outputs = [o.text for o in (lower_for_test(spec, pipeline, text)
                                for spec in (buggy, REFERENCE)) if o.ok]
    calls = {c for out in outputs for c in lowered_calls(out)}
    return (outside_table(text, outputs, _version_of(buggy), _platform_of(pipeline)), calls)


# --- the helper can fail ------------------------------------------------------

PROPOSED_TEST = """\
// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s
module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuMemAllocAsync(
  // CHECK: llvm.call @mgpuMemset32(
  func.func @f0() {
    return
  }
}
"""

PROPOSED_LOWERED = """\
llvm.func @f0() {
  %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %1 = llvm.call @mgpuMemAlloc(%c, %f) : (i64, i8) -> !llvm.ptr
  %2 = func.call @mgpuMemset64(%1, %v, %n, %0) : (!llvm.ptr, i64, i64, !llvm.ptr) -> ()
  "llvm.call"(%1, %0) <{callee = @mgpuMemFreeAsync}> : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> ()
  llvm.call @free(%1) : (!llvm.ptr) -> ()
  llvm.return
}
"""


def test_helper_catches_names_outside_the_table() -> None:
    bad = outside_table(PROPOSED_TEST, [PROPOSED_LOWERED], 19)
    assert bad == ["CHECK names @mgpuMemAllocAsync",
                   "lowered IR calls @mgpuMemAlloc with 2 argument(s)",
                   "lowered IR calls @mgpuMemFreeAsync with 2 argument(s)",
                   "lowered IR calls @mgpuMemset64 with 4 argument(s)"]
    # mgpuMemAlloc(size, stream) is LLVM 16's real one; 19's takes a flag too.
    assert "lowered IR calls @mgpuMemAlloc with 2 argument(s)" not in \
        outside_table("", [PROPOSED_LOWERED], 16)
    # Real functions with their real arities pass.
    assert outside_table("// CHECK: llvm.call @mgpuStreamDestroy(%[[H]])",
                         ["llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> ()"], 19) == []


@needs_19
def test_helper_catches_the_split_api_lowering_of_an_exported_program() -> None:
    # A lowering that calls functions no runtime has (the seed's split API) is
    # caught on a real program, in the RUN line's own output.
    source = """// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s
module {
  func.func @f0() {
    %t1 = gpu.wait async
    %m2, %t2 = gpu.alloc async [%t1] () : memref<4xf32>
    %t3 = gpu.dealloc async [%t2] %m2 : memref<4xf32>
    gpu.wait [%t3]
    return
  }
}
"""
    split = lower_for_test("xdsl:split-api", "gpu-to-llvm", source)
    assert split.ok, split.error
    assert any("mgpuMemAllocAsync" in b or "mgpuMemFreeAsync" in b
               for b in outside_table(source, [split.text], 19))
    ref = lower_for_test(REFERENCE, "gpu-to-llvm", source)
    assert ref.ok and lowered_calls(ref.text)
    assert outside_table(source, [ref.text], 19) == []


# --- a real export ------------------------------------------------------------

@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The lit tests `fuzz --report` exports from a small mlir-opt-19 campaign
    whose generator draws tokens through control flow and memory spaces."""
    report = tmp_path_factory.mktemp("campaign") / "report"
    cmd = [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering", "mlir-opt-19",
           "--pipeline", "func.func(gpu-async-region),gpu-to-llvm", "--cf-tokens",
           "--alloc-spaces", "--max-examples", "25", "--seed", "0", "-j", "1",
           "--report", str(report), "--allow-unknown"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode in (0, 1, 3), proc.stderr[-2000:]
    return sorted((report / "lit").glob("*.mlir"))


@needs_19
def test_exported_lit_tests_name_only_table_functions(exported: list[Path]) -> None:
    assert exported, "the campaign exported no lit test: nothing was checked"
    named, called = set(), set()
    for test in exported:
        bad, calls = _violations_of(test, "mlir-opt-19")
        assert bad == [], test.name
        named |= check_line_names(test.read_text(encoding="utf-8"))
        called |= calls
    # Not vacuous: the tests pin runtime calls and their outputs make some.
    assert named, "no exported CHECK line names a runtime function"
    assert len({n for n, _ in called}) >= 3, called


@needs_19
def test_published_findings_lit_tests_name_only_table_functions() -> None:
    tests = sorted(FINDINGS_LIT.glob("*.mlir"))
    assert tests
    for test in tests:
        for lowering in ("mlir-opt-19", "mlir-opt-22"):
            if find_mlir_opt(_version_of(lowering)) is None:
                continue
            assert _violations_of(test, lowering)[0] == [], (test.name, lowering)
