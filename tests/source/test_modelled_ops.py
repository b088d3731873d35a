"""Ops real host code uses around GPU work, modelled (issue 26) instead of
making verdicts `unknown`: `memref.copy` (a host read and write), descriptor
ops (views of a buffer, no access), `gpu.set_default_device` and
`gpu.host_register`/`unregister` (no stream or event).  What they cannot be
proven harmless for (a buffer's address used as a pointer) stays `unknown`,
with the reason.  Through the real CLI and mlir-opt-19/22, plus one
hand-broken lowering that shows a copy's edge is enforced."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.invariants import CHECKERS
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model.verdicts import CheckResult
from gpu_alloc_verify.verify.source.user_file import from_text
from tests.builders import DECLS, check_module
from tests.conftest import need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]

# Read back what the GPU wrote into a host_shared buffer: the host copy must
# come after the wait ({wait} at line 6).
COPY_BACK = """\
func.func @read_back(%host: memref<256xf32>, %v: f32) {{
  %b = gpu.alloc host_shared () : memref<256xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %b, %v : memref<256xf32>, f32
  %t2 = gpu.memcpy async [%t1] %b, %host : memref<256xf32>, memref<256xf32>
{wait}
  memref.copy %b, %host : memref<256xf32> to memref<256xf32>
{late_wait}
  return
}}
"""

# Views of host buffers, an alignment check on a buffer's address, the
# device chosen and a buffer pinned, around a correct round trip.
VIEWS = """\
func.func @views(%host: memref<16x16xf32>, %v: f32, %dev: i32) {
  gpu.set_default_device %dev
  %c0 = arith.constant 0 : index
  %flat = memref.collapse_shape %host [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  %back = memref.expand_shape %flat [[0, 1]] output_shape [16, 16]
      : memref<256xf32> into memref<16x16xf32>
  %dyn = memref.cast %flat : memref<256xf32> to memref<?xf32>
  %sub = memref.subview %flat[0] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1]>>
  %re = memref.reinterpret_cast %flat to offset: [0], sizes: [256], strides: [1]
      : memref<256xf32> to memref<256xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %flat
      : memref<256xf32> -> memref<f32>, index, index, index
  %gen = memref.memory_space_cast %dyn : memref<?xf32> to memref<?xf32, 1>
  %addr = memref.extract_aligned_pointer_as_index %host : memref<16x16xf32> -> index
  %c64 = arith.constant 64 : index
  %rem = arith.remui %addr, %c64 : index
  %aligned = arith.cmpi eq, %rem, %c0 : index
  cf.assert %aligned, "host buffer must be 64-byte aligned"
  %u = memref.cast %host : memref<16x16xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  %b = gpu.alloc host_shared () : memref<256xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %b, %re : memref<256xf32>, memref<256xf32>
  %t2 = gpu.memset async [%t1] %b, %v : memref<256xf32>, f32
  gpu.wait [%t2]
  memref.store %v, %dyn[%c0] : memref<?xf32>
  gpu.host_unregister %u : memref<*xf32>
  %t3 = gpu.wait async
  %t4 = gpu.dealloc async [%t3] %b : memref<256xf32>
  gpu.wait [%t4]
  return
}
"""


# The analysis' invariants: `differential` is an oracle of its own (its
# interpreters' gaps, llvm.intr.memcpy, memref.collapse_shape, are not these
# ops' modelling in the analysis).
ANALYSIS = [i for i in CHECKERS if i != "differential"]


def check(tmp_path: Path, text: str, version: int, *extra: str) -> tuple[int, dict[str, Any]]:
    need_mlir_opt(version)
    f = tmp_path / "host.mlir"
    f.write_text(text)
    selected = [a for i in ANALYSIS for a in ("--invariant", i)]
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(f), "--lowering",
                           f"mlir-opt-{version}", "--json", *selected, *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def verdicts(out: dict[str, Any], version: int) -> dict[str, str]:
    per = out["by_lowering"][f"mlir-opt-{version}"]
    return {i: next(v for v, n in c.items() if n) for i, c in per.items()}


@pytest.mark.parametrize("version", [19, 22])
def test_copy_after_the_wait_is_decided(tmp_path: Path, version: int) -> None:
    text = COPY_BACK.format(wait="  gpu.wait [%t2]", late_wait="")
    rc, out = check(tmp_path, text, version)
    assert verdicts(out, version)["async-order"] == "holds", out["unknown"]
    assert rc == 0, out["unknown"]


@pytest.mark.parametrize("version", [19, 22])
def test_copy_racing_the_gpu_is_decided(tmp_path: Path, version: int) -> None:
    # The source itself reads the buffer before awaiting the work: no
    # happens-before edge of the source orders them, so the lowering breaks
    # none (async-order judges the lowering, not the program), but the
    # verdict is decided: the copy is no unmodelled op.
    text = COPY_BACK.format(wait="", late_wait="  gpu.wait [%t2]")
    rc, out = check(tmp_path, text, version)
    assert verdicts(out, version)["async-order"] in ("holds", "not-applicable")
    assert not out["unknown"], out["unknown"]


# The read-back, lowered as mlir-opt-19 does (file locations of
# `src.mlir`), with the copy at {copy_here_early} or {copy_here}.
LOWERED = """\
module {{
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @read_back(%v: f32) {{
    %n = llvm.mlir.constant(1024 : i64) : i64 loc("src.mlir":2:8)
    %h = llvm.call @malloc(%n) : (i64) -> !llvm.ptr loc("src.mlir":2:8)
    %z = llvm.mlir.zero : !llvm.ptr loc("src.mlir":3:8)
    %one = llvm.mlir.constant(1 : i8) : i8 loc("src.mlir":3:8)
    %b = llvm.call @mgpuMemAlloc(%n, %z, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr \
loc("src.mlir":3:8)
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":4:9)
    %bits = llvm.bitcast %v : f32 to i32 loc("src.mlir":5:9)
    %cnt = llvm.mlir.constant(256 : i64) : i64 loc("src.mlir":5:9)
    llvm.call @mgpuMemset32(%b, %bits, %cnt, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () \
loc("src.mlir":5:9)
{copy_here_early}
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":6:3)
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("src.mlir":6:3)
{copy_here}
    llvm.return loc("src.mlir":8:3)
  }}
{decls}}}
"""
COPY = ('    "llvm.intr.memcpy"(%h, %b, %n) <{isVolatile = false}> '
        ': (!llvm.ptr, !llvm.ptr, i64) -> () loc("src.mlir":7:3)')
SOURCE = """\
func.func @read_back(%v: f32) {
  %h = memref.alloc() : memref<256xf32>
  %b = gpu.alloc host_shared () : memref<256xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %b, %v : memref<256xf32>, f32
  gpu.wait [%t1]
  memref.copy %b, %h : memref<256xf32> to memref<256xf32>
  return
}
"""


def test_a_lowering_that_copies_before_the_wait_is_caught() -> None:
    good = LOWERED.format(copy_here_early="", copy_here=COPY, decls=DECLS)
    assert check_module(SOURCE, good)["async-order"].verdict == "holds"
    bad = LOWERED.format(copy_here_early=COPY, copy_here="", decls=DECLS)
    res = check_module(SOURCE, bad)["async-order"]
    assert res.verdict == "violated"
    assert "src.mlir:7:3" in res.violations[0].detail


@pytest.mark.parametrize("version", [19, 22])
def test_descriptor_ops_device_and_pinning_leave_nothing_unknown(tmp_path: Path,
                                                                 version: int) -> None:
    rc, out = check(tmp_path, VIEWS, version)
    assert not out["unknown"], out["unknown"]
    assert rc == 0
    got = verdicts(out, version)
    # mgpuSetDefaultDevice and mgpuMemHostRegisterMemRef are real entry points.
    assert got["runtime-contract"] == "holds"
    assert got["async-order"] == "holds"


def lowered_by_19(tmp_path: Path, text: str) -> str:
    """`text` lowered by the real mlir-opt-19, with `src.mlir` locations."""
    (tmp_path / "src.mlir").write_text(text)
    proc = subprocess.run([need_mlir_opt(19), "src.mlir", "--gpu-to-llvm",
                           "--mlir-print-debuginfo", "--mlir-print-local-scope"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def analysis_only(text: str, lowered: str, runtime: str) -> dict[str, CheckResult]:
    """The analysis's verdicts, not reconciled with execution."""
    src = from_text(text, "src.mlir", need_mlir_opt(19))
    return judge(src, LoweringOutcome("ok", lowered=lowered), "mlir-opt-19",
                 CheckOptions(runtime=runtime, truth=None)).results


# HIP ignores host_shared: a host access of such a buffer reads device
# memory.  Judged by the analysis alone: the execution oracle does not model
# HIP host reads of device memory (it disagrees on a plain `memref.load` too).
def test_host_access_through_a_view_is_the_buffer_s(tmp_path: Path) -> None:
    text = """\
func.func @peek(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %b = gpu.alloc host_shared () : memref<256xf32>
  %dyn = memref.cast %b : memref<256xf32> to memref<?xf32>
  %x = memref.load %dyn[%c0] : memref<?xf32>
  return %x : f32
}
"""
    res = analysis_only(text, lowered_by_19(tmp_path, text), "hip")["runtime-contract"]
    assert res.verdict == "violated"
    assert "src.mlir:5:" in res.violations[0].detail
    assert "src.mlir:3:" in res.violations[0].detail


def test_copy_of_a_host_shared_buffer_on_hip_is_a_host_access(tmp_path: Path) -> None:
    text = COPY_BACK.format(wait="  gpu.wait [%t2]", late_wait="")
    res = analysis_only(text, lowered_by_19(tmp_path, text), "hip")["runtime-contract"]
    assert res.verdict == "violated"
    assert "src.mlir:7:" in res.violations[0].detail  # the copy


@pytest.mark.parametrize("version", [19, 22])
def test_an_address_used_as_a_pointer_stays_unknown(tmp_path: Path, version: int) -> None:
    # The buffer's address turned back into a pointer and read: a host read
    # the reader cannot tie to a buffer, so the order is not decided.
    text = """\
func.func @raw(%host: memref<256xf32>, %v: f32) -> f32 {
  %b = gpu.alloc host_shared () : memref<256xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %host, %b : memref<256xf32>, memref<256xf32>
  %addr = memref.extract_aligned_pointer_as_index %host : memref<256xf32> -> index
  %i = arith.index_cast %addr : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  %x = llvm.load %p : !llvm.ptr -> f32
  gpu.wait [%t1]
  return %x : f32
}
"""
    _, out = check(tmp_path, text, version)
    assert verdicts(out, version)["async-order"] == "unknown"
    [why] = [u["reason"] for u in out["unknown"] if u["invariant"] == "async-order"]
    assert "llvm.load at" in why and "extract_aligned_pointer_as_index" in why
