"""Host-side ops added for `differential` on real files (issue 27, second
round): globals, affine memory ops, strided views, linalg.fill, float
arithmetic, scf.while and affine.apply in lowered code, ROCm's device-memref
helper.  Each test fails when the op computes a wrong result."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.oracles.dense_init import dense_bytes
from gpu_alloc_verify.oracles.differential import Normalized, NormalizedAllocation, differences
from gpu_alloc_verify.oracles.lowered_interp import run_function as run_lowered
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_xdsl.machine import bind, functions, parse, run
from gpu_alloc_verify.oracles.strided import subview
from tests.conftest import need_mlir_opt


# -- dense initializers ------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("dense<[1, 2, 3]> : tensor<3xi64>", struct.pack("<3q", 1, 2, 3)),
    ("dense<[[-1.0, 2.5], [0.5, 4.0]]> : tensor<2x2xf32>", struct.pack("<4f", -1, 2.5, .5, 4)),
    ("dense<5.000000e-01> : tensor<2x2xf16>", struct.pack("<4e", .5, .5, .5, .5)),
    ("dense<-7> : tensor<2xi32>", struct.pack("<2i", -7, -7)),
    ('dense<"0x0100000002000000"> : tensor<2xi32>', struct.pack("<2i", 1, 2)),
    ("dense<[true, false]> : tensor<2xi1>", b"\x01\x00"),
    ("dense<0x7FC00000> : tensor<1xf32>", b"\x00\x00\xc0\x7f"),
])
def test_dense_initializer_bytes(text: str, want: bytes) -> None:
    assert dense_bytes(text) == want


def test_a_dense_initializer_of_the_wrong_count_is_declined() -> None:
    with pytest.raises(Exception, match="initialized"):
        dense_bytes("dense<[1, 2]> : tensor<3xi32>")


# -- strided views -------------------------------------------------------------------
def test_subview_layout_and_rank_reduction() -> None:
    # 4x6 row-major, rows 1.., cols 2.. step 2, one row kept: offset 1*6 + 2.
    assert subview((0, (4, 6), (6, 1)), [1, 2], [1, 2], [1, 2], [2]) == (8, (2,), (2,))
    assert subview((3, (4, 6), (6, 1)), [2, 0], [2, 6], [2, 1], [2, 6]) == \
        (15, (2, 6), (12, 1))


# -- the source interpreter ------------------------------------------------------------
SOURCE = """\
module {
  memref.global "private" constant @g : memref<2x3xi32> = dense<[[1, 2, 3], [4, 5, 6]]>
  func.func @f(%k: index) -> (i32, i32, i32, f32, i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %g = memref.get_global @g : memref<2x3xi32>
    // affine.load with a symbol: [d0 floordiv 2, s0 mod 3] at d0 = 3, s0 = k.
    %a = affine.load %g[%c1 floordiv 2, symbol(%k) mod 3] : memref<2x3xi32>
    %sv = memref.subview %g[1, 1] [1, 2] [1, 1]
        : memref<2x3xi32> to memref<2xi32, strided<[1], offset: 4>>
    %b = memref.load %sv[%c1] : memref<2xi32, strided<[1], offset: 4>>
    %flat = memref.collapse_shape %g [[0, 1]] : memref<2x3xi32> into memref<6xi32>
    %c = memref.load %flat[%c5] : memref<6xi32>
    %h = memref.alloc() : memref<2x2xf32>
    %x = arith.constant 1.5 : f32
    linalg.fill ins(%x : f32) outs(%h : memref<2x2xf32>)
    %d = memref.load %h[%c1, %c1] : memref<2x2xf32>
    %s = affine.for %i = 0 to 3 iter_args(%acc = %a) -> (i32) {
      %v = affine.load %flat[%i + 3] : memref<6xi32>
      %n = arith.addi %acc, %v : i32
      affine.yield %n : i32
    }
    return %a, %b, %c, %d, %s : i32, i32, i32, f32, i32
  }
}
"""


def _source_run(text: str, scalars: dict[int, Any]) -> list[Any]:
    from gpu_alloc_verify.verify.source.text import normalize

    module = parse(normalize(text, "t.mlir", need_mlir_opt(19)))
    fn = functions(module)[0]
    rt = SimulatedRuntime()
    got = run(module, fn, scalars, bind(fn, scalars, rt, 3), rt, {})
    assert got.status == "ok", got.reason
    return [getattr(getattr(v, "value", None), "data", v) for v in got.returned]


def test_source_globals_affine_views_and_fill() -> None:
    a, b, c, d, s = _source_run(SOURCE, {0: 4})
    assert a == 2  # g[0][4 mod 3]
    assert b == 6  # g[1][2]
    assert c == 6  # flat[5]
    assert d == 1.5
    assert s == 2 + 4 + 5 + 6


def test_an_out_of_bounds_subview_skips_the_input() -> None:
    text = SOURCE.replace("%g[1, 1] [1, 2]", "%g[1, 2] [1, 2]").replace(
        "offset: 4>>", "offset: 5>>")
    from gpu_alloc_verify.verify.source.text import normalize

    module = parse(normalize(text, "t.mlir", need_mlir_opt(19)))
    fn = functions(module)[0]
    rt = SimulatedRuntime()
    assert run(module, fn, {0: 4}, bind(fn, {0: 4}, rt, 3), rt, {}).status == "skipped"


# -- the lowered interpreter -------------------------------------------------------------
LOWERED = """\
module {
  llvm.mlir.global private constant @g(dense<[7, 9]> : tensor<2xi32>) {addr_space = 0 : i32}
      : !llvm.array<2 x i32> loc("glob")
  llvm.func @f(%n: i64, %x: f32) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %p = llvm.mlir.addressof @g : !llvm.ptr
    %p1 = llvm.getelementptr %p[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x i32>
    %v = llvm.load %p1 : !llvm.ptr -> i32 loc("ld")
    %ni = builtin.unrealized_conversion_cast %n : i64 to index
    %q = affine.apply affine_map<(d0)[s0] -> (d0 floordiv 4 + s0 mod 3)>(%ni)[%ni]
    %r = scf.while (%i = %c0) : (i64) -> i64 {
      %more = llvm.icmp "slt" %i, %n : i64
      scf.condition(%more) %i : i64
    } do {
    ^bb0(%i: i64):
      %j = llvm.add %i, %c1 : i64
      scf.yield %j : i64
    }
    %tiny = llvm.mlir.constant(9.31322574615478515625E-10 : f32) : f32
    %fq = llvm.fadd %x, %tiny : f32
    %fm = llvm.fsub %fq, %x : f32
    %slot = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    %sq = builtin.unrealized_conversion_cast %q : index to i64
    llvm.store %sq, %p : i64, !llvm.ptr loc("st_apply")
    llvm.store %r, %p : i64, !llvm.ptr loc("st_while")
    llvm.store %fm, %p : f32, !llvm.ptr loc("st_float")
    llvm.return
  }
}
"""


def _writes(run_: Any, loc: str) -> list[str]:
    out = run_.outcome
    assert out is not None, run_.reason
    return [h.value for h in out.host_accesses if h.loc == loc and h.access == "write"]


def test_lowered_global_affine_apply_while_and_float_rounding() -> None:
    got = run_lowered(LOWERED, "f", [-5 & (2**64 - 1), 1.0], SimulatedRuntime())
    assert got.status == "ok" and got.outcome is not None, got.reason
    assert [h.value for h in got.outcome.host_accesses if h.loc == "ld"] == ["09000000"]
    # -5 floordiv 4 = -2, -5 mod 3 = 1 (floor semantics): -1.
    assert _writes(got, "st_apply") == [struct.pack("<q", -1).hex()]
    assert _writes(got, "st_while") == [struct.pack("<q", 0).hex()]  # n < 0: no round
    got = run_lowered(LOWERED, "f", [3, 1.0], SimulatedRuntime())
    assert _writes(got, "st_while") == [struct.pack("<q", 3).hex()]
    # f32 rounding after each op: 1 + 2**-30 is 1 in f32, so the difference is
    # 0 (in doubles it would be 2**-30); the global was made at its location.
    assert _writes(got, "st_float") == [struct.pack("<f", 0.0).hex()]
    assert got.outcome is not None
    assert any(a.label.startswith("glob#") for a in got.outcome.allocations)


DEVICE_MEMREF = """\
module {
  llvm.func @mgpuMemGetDeviceMemRef1dFloat(!llvm.ptr, !llvm.ptr, i64, i64, i64)
      -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f() {
    %c2 = llvm.mlir.constant(2 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c16 = llvm.mlir.constant(16 : i64) : i64
    %v = llvm.mlir.constant(2.5 : f32) : f32
    %h = llvm.call @malloc(%c16) : (i64) -> !llvm.ptr loc("buf")
    %d = llvm.call @mgpuMemGetDeviceMemRef1dFloat(%h, %h, %c1, %c2, %c1)
        : (!llvm.ptr, !llvm.ptr, i64, i64, i64)
        -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %a = llvm.extractvalue %d[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %o = llvm.extractvalue %d[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %e = llvm.getelementptr %a[%o] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %v, %e : f32, !llvm.ptr loc("st")
    llvm.return
  }
}
"""


def test_device_memref_is_the_same_memory_at_the_same_offset() -> None:
    got = run_lowered(DEVICE_MEMREF, "f", [], SimulatedRuntime())
    assert got.status == "ok" and got.outcome is not None, got.reason
    (write,) = [h for h in got.outcome.host_accesses if h.loc == "st"]
    assert write.target == "buf#0+4" and write.value == struct.pack("<f", 2.5).hex()


def test_a_zero_byte_allocation_one_side_dropped_is_no_difference() -> None:
    # LLVM 22 erases an unused gpu.alloc; with size 0 its contents read "empty".
    def outcome(allocations: dict[str, NormalizedAllocation]) -> Normalized:
        return {"allocations": allocations, "host_accesses": [], "errors": [],
                "live_streams": 0, "live_events": 0}

    empty = outcome({})
    src = outcome({"a#0": {"size": 0, "kind": "device", "live": True, "contents": "empty"}})
    assert differences(src, empty) == []
    written = outcome({"a#0": {"size": 4, "kind": "device", "live": True,
                               "contents": "01000000"}})
    assert differences(written, empty) == ["allocations[a#0]"]


# -- entry points ------------------------------------------------------------------------
TOKENS = """\
func.func @finish(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}
func.func @start(%h: memref<4xf32>) {
  %s = gpu.wait async
  %d, %t = gpu.alloc async [%s] () : memref<4xf32>
  %t2 = gpu.memcpy async [%t] %d, %h : memref<4xf32>, memref<4xf32>
  %t3 = gpu.dealloc async [%t2] %d : memref<4xf32>
  call @finish(%t3) : (!gpu.async.token) -> ()
  return
}
"""


def test_a_function_taking_a_token_runs_from_its_callers(tmp_path: Path) -> None:
    # @finish alone cannot run (no input stands for a token); from @start its
    # gpu.wait is on a block argument, which 19 lowers to an event
    # synchronize on a stream: the comparison must see that.
    need_mlir_opt(19)
    path = tmp_path / "tok.mlir"
    path.write_text(TOKENS)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_alloc_verify", "check", str(path), "--lowering",
         "mlir-opt-19", "--invariant", "differential", "--json", "--pipeline", "gpu-to-llvm"],
        capture_output=True, text=True, timeout=600)
    got = json.loads(proc.stdout)
    assert got["by_lowering"]["mlir-opt-19"]["differential"]["violated"] == 1, \
        proc.stdout[-2000:]
    (v,) = [v for v in got["violations"] if v["invariant"] == "differential"]
    assert "@start" in v["detail"] and "invalid-handle" in v["detail"]
