"""Issue 45 through the command line: no false alarm on what real GPU host
code does, and a differential that says why it does not apply.

- 22's SYCL wrapper exports mgpuMemcpy(dst, src, bytes, queue) (PR #141647):
  `--runtime sycl` on mlir-opt-22 holds `runtime-contract`; on 19, whose
  wrapper has none, it does not hold.
- A `gpu.launch` of grid size 0 with an empty body runs no thread: 22's
  gpu-to-llvm erases it, and `differential` holds.
- 19 keeps that un-outlined `gpu.launch`: the lowered program cannot run,
  so `differential` is not-applicable naming the op, never unknown.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import need_mlir_opt

SYCL_MEMCPY = """\
func.func @copy(%host: memref<16xf32>) {
  %t0 = gpu.wait async
  %dev, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %t2 = gpu.memcpy async [%t1] %dev, %host : memref<16xf32>, memref<16xf32>
  %t3 = gpu.memcpy async [%t2] %host, %dev : memref<16xf32>, memref<16xf32>
  %t4 = gpu.dealloc async [%t3] %dev : memref<16xf32>
  gpu.wait [%t4]
  return
}
"""

ZERO_LAUNCH = """\
func.func @main(%buf: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c0, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
"""


def _check(tmp_path: Path, text: str, version: int, invariant: str,
           *extra: str) -> tuple[str, dict[str, Any]]:
    """The verdict of `invariant` on mlir-opt-`version`, and the JSON."""
    need_mlir_opt(version)
    path = tmp_path / "prog.mlir"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_alloc_verify", "check", str(path), "--lowering",
         f"mlir-opt-{version}", "--invariant", invariant, "--json", *extra],
        capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[2])
    assert "Traceback" not in proc.stderr, proc.stderr
    out = json.loads(proc.stdout)
    counts = out["by_lowering"][f"mlir-opt-{version}"][invariant]
    return next(v for v, n in counts.items() if n), out


@pytest.mark.slow
def test_sycl_memcpy_with_a_stream_holds_on_22_not_on_19(tmp_path: Path) -> None:
    verdict, _ = _check(tmp_path, SYCL_MEMCPY, 22, "runtime-contract", "--runtime", "sycl")
    assert verdict == "holds"
    # 19's SYCL wrapper has no mgpuMemcpy: never holds there.
    verdict, out = _check(tmp_path, SYCL_MEMCPY, 19, "runtime-contract", "--runtime", "sycl")
    assert verdict in ("violated", "unknown")
    said = json.dumps(out["violations"] + out["unknown"])
    assert "sycl runtime at LLVM 19 has no mgpuMemcpy taking 4 argument(s)" in said


@pytest.mark.slow
def test_zero_size_empty_launch_holds_differential_on_22(tmp_path: Path) -> None:
    verdict, out = _check(tmp_path, ZERO_LAUNCH, 22, "differential")
    assert verdict == "holds", out


@pytest.mark.slow
def test_lowered_module_keeping_a_gpu_launch_is_not_applicable(tmp_path: Path) -> None:
    need_mlir_opt(19)
    path = tmp_path / "prog.mlir"
    path.write_text(ZERO_LAUNCH)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_alloc_verify", "check", str(path), "--lowering",
         "mlir-opt-19", "--invariant", "differential"],
        capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[2])
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 3, proc.stdout + proc.stderr  # nothing checked
    assert f"differential                 not-applicable: the lowering left gpu.launch " \
        f"(from {path}:4:3)" in proc.stdout
