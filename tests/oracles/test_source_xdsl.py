"""`differential` on modules outside the generator's model: the source run
from its own text on xDSL's interpreter (`oracles.source_xdsl`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import DECLS, check_module
from tests.conftest import need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "gpu_alloc_verify"]

MEMSET_READ = """\
func.func @memset_read(%v: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %buf = gpu.alloc host_shared () : memref<16xi32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
  gpu.wait [%t1]
  %x = memref.load %buf[%c0] : memref<16xi32>
  return %x : i32
}
"""


def differential(path: Path, version: int, pipeline: str | None = None) -> dict:
    need_mlir_opt(version)
    cmd = [*CLI, "check", str(path), "--lowering", f"mlir-opt-{version}", "--json"]
    if pipeline:
        cmd += ["--pipeline", pipeline]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode in (0, 1, 3), proc.stderr
    return json.loads(proc.stdout)


def verdict(report: dict) -> str:
    counts = report["by_invariant"]["differential"]
    return next(k for k, v in counts.items() if v)


@pytest.mark.parametrize("version", [19, 22])
def test_memset_of_an_argument_is_decided(tmp_path: Path, version: int) -> None:
    path = tmp_path / "memset_read.mlir"
    path.write_text(MEMSET_READ)
    assert verdict(differential(path, version)) in ("holds", "violated")


@pytest.mark.slow
def test_a_users_own_kernel_is_run() -> None:
    # @k::@negate is the file's own kernel, not one of the generator's catalogue.
    path = ROOT / "tests" / "corpus" / "gpu_async_region_sync_ops.mlir"
    report = differential(path, 19, "func.func(gpu-async-region),"
                          "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm")
    assert verdict(report) in ("holds", "violated"), report.get("unknown")


def test_an_unmodelled_external_call_is_unknown_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "ext.mlir"
    path.write_text("""\
func.func private @mystery_sum(memref<4xi32>) -> i32
func.func @calls_out() -> i32 {
  %buf = gpu.alloc host_shared () : memref<4xi32>
  %s = func.call @mystery_sum(%buf) : (memref<4xi32>) -> i32
  return %s : i32
}
""")
    report = differential(path, 19)
    assert verdict(report) == "unknown"
    reasons = [u.get("reason", "") for u in report["unknown"]
               if u.get("invariant") == "differential"]
    assert any("@mystery_sum" in r for r in reasons), reasons


# The lowered code of MEMSET_READ as mlir-opt-19 emits it, the memset kept
# (`{memset}`) or dropped; locations name the source ops (`src.mlir:L:C`).
LOWERED = """\
module {
  llvm.func @memset_read(%arg0: i32) -> i32 {
    %c64 = llvm.mlir.constant(64 : i64) : i64 loc("src.mlir":3:10)
    %c16 = llvm.mlir.constant(16 : i64) : i64 loc("src.mlir":5:9)
    %null = llvm.mlir.zero : !llvm.ptr loc("src.mlir":3:10)
    %one = llvm.mlir.constant(1 : i8) : i8 loc("src.mlir":3:10)
    %p = llvm.call @mgpuMemAlloc(%c64, %null, %one)
        : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("src.mlir":3:10)
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":4:9)
    {memset}
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":6:3)
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("src.mlir":6:3)
    %x = llvm.load %p : !llvm.ptr -> i32 loc("src.mlir":7:8)
    llvm.return %x : i32 loc("src.mlir":8:3)
  }
""" + DECLS + "}\n"
MEMSET = ('llvm.call @mgpuMemset32(%p, %arg0, %c16, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) '
          '-> () loc("src.mlir":5:9)')


def test_hand_written_lowering_agrees() -> None:
    results = check_module(MEMSET_READ, LOWERED.replace("{memset}", MEMSET))
    assert results["differential"].verdict == "holds", results["differential"]


def test_a_dropped_memset_is_violated() -> None:
    result = check_module(MEMSET_READ, LOWERED.replace("{memset}", ""))["differential"]
    assert result.verdict == "violated", result
    assert "memset_read" in result.violations[0].detail


@pytest.mark.slow
def test_choosing_the_device_is_decided(tmp_path: Path) -> None:
    """gpu.set_default_device changes nothing a one-device run observes: both
    sides run it (mgpuSetDefaultDevice) as a no-op, and differential is
    decided.  (gpu.host_register is a no-op too, but the lowered interpreter
    cannot yet store the memref descriptor its call takes.)"""
    need_mlir_opt(19)
    f = tmp_path / "device.mlir"
    f.write_text("""func.func @main(%v: f32) {
  %c0 = arith.constant 0 : i32
  gpu.set_default_device %c0
  %b = gpu.alloc host_shared () : memref<16xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %b, %v : memref<16xf32>, f32
  gpu.wait [%t1]
  gpu.dealloc %b : memref<16xf32>
  return
}
""")
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(f),
                           "--lowering", "mlir-opt-19", "--invariant", "differential",
                           "--json"], capture_output=True, text=True, timeout=300)
    out = json.loads(proc.stdout)
    counts = out["by_lowering"]["mlir-opt-19"]["differential"]
    assert counts["holds"] + counts["violated"] == 1, out["unknown"]
