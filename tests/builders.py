"""Judge hand-written lowered IR against a source program."""

from __future__ import annotations

import re
import subprocess

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model.verdicts import CheckResult
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.conftest import need_mlir_opt

# Declarations every hand-written lowered module may use.
DECLS = """
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuMemset32(!llvm.ptr, i32, i64, !llvm.ptr)
  llvm.func @mgpuMemcpy(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
"""


def decls_for(funcs: str) -> str:
    """`DECLS` less the functions `funcs` declares itself (a wrapper declared
    with another signature, as a lowering may)."""
    own = set(re.findall(r"llvm\.func @(\w+)\(", funcs))
    return "\n".join(line for line in DECLS.split("\n")
                     if not (m := re.search(r"@(\w+)\(", line)) or m.group(1) not in own)


def generic(text: str) -> str:
    tool = need_mlir_opt(19)
    proc = subprocess.run(
        [tool, "--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope",
         "-"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def check(source: str, lowered_funcs: str, runtime: str = "cuda",
          timeout_ms: int = 2000) -> dict[str, CheckResult]:
    """Verdicts of every invariant for `lowered_funcs` (llvm.func bodies)."""
    program = program_from_text(source)
    lowered = generic("module {\n" + lowered_funcs + decls_for(lowered_funcs) + "}\n")
    j = judge(program, LoweringOutcome("ok", lowered=lowered), "hand-written",
              CheckOptions(runtime=runtime, timeout_ms=timeout_ms))
    return j.results


def check_module(source: str, lowered_module: str, name: str = "src.mlir",
                 runtime: str = "cuda", timeout_ms: int = 2000) -> dict[str, CheckResult]:
    """Verdicts for a source in any MLIR (read as `check` reads a user's file,
    named `name`) and a whole hand-written lowered module."""
    from gpu_alloc_verify.verify.source.user_file import from_text

    src = from_text(source, name, need_mlir_opt(19))
    j = judge(src, LoweringOutcome("ok", lowered=generic(lowered_module)), "hand-written",
              CheckOptions(runtime=runtime, timeout_ms=timeout_ms))
    return j.results
