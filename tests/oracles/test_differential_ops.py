"""Op semantics added for `differential` on real files (issue 27): each test
fails when the op computes a wrong result."""

from __future__ import annotations

import math
import random
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from gpu_alloc_verify.oracles.kernel_api import MemRefView
from gpu_alloc_verify.oracles.kernel_interp import load_kernel, round_f32
from gpu_alloc_verify.oracles.kernel_math import fma
from gpu_alloc_verify.oracles.llvm_values import Agg, decode, encode
from gpu_alloc_verify.oracles.lowered_interp import run_function as run_lowered
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from tests.conftest import need_mlir_opt

DESC = "!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>"


# -- aggregates in memory -------------------------------------------------------
def test_a_stored_descriptor_has_every_field_at_its_offset() -> None:
    desc = Agg({(0,): 0x1000, (1,): 0x1010, (2,): 3, (3, 0): 4, (3, 1): 5,
                (4, 0): 5, (4, 1): 1})
    data = encode(desc, DESC)
    assert len(data) == 56
    assert struct.unpack("<7Q", data) == (0x1000, 0x1010, 3, 4, 5, 5, 1)
    back = decode(data, DESC)
    assert {k: back.extract(k) for k in desc.items} == desc.items


def test_struct_padding_and_undef_fields_are_zero_bytes() -> None:
    data = encode(Agg({(0,): 0xAB}), "!llvm.struct<(i8, i32, f32)>")
    assert data == bytes([0xAB, 0, 0, 0]) + bytes(4) + struct.pack("<f", 0.0)


def test_an_aggregate_in_a_scalar_slot_is_refused() -> None:
    with pytest.raises(Exception, match="aggregate"):
        encode(Agg({(0,): 1}), "i64")


# -- lowered host code ---------------------------------------------------------------
MEMCPY = """\
module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f(%n: i64) {
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %c9 = llvm.mlir.constant(9 : i32) : i32
    %p = llvm.call @malloc(%c8) : (i64) -> !llvm.ptr loc("a")
    %q = llvm.call @malloc(%c8) : (i64) -> !llvm.ptr loc("b")
    %p4 = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, i32
    llvm.store %c7, %p : i32, !llvm.ptr loc("s1")
    llvm.store %c9, %p4 : i32, !llvm.ptr loc("s2")
    "llvm.intr.memcpy"(%q, %p, %n) <{isVolatile = false}>
        : (!llvm.ptr, !llvm.ptr, i64) -> () loc("cp")
    %x = llvm.load %q : !llvm.ptr -> i64 loc("ld")
    llvm.return
  }
}
"""


def _reads(run: object, loc: str) -> list[str]:
    out = getattr(run, "outcome", None)
    assert out is not None, getattr(run, "reason", "")
    return [h.value for h in out.host_accesses if h.loc == loc and h.access == "read"]


def test_intr_memcpy_copies_the_bytes() -> None:
    run = run_lowered(MEMCPY, "f", [8], SimulatedRuntime())
    assert run.status == "ok", run.reason
    assert _reads(run, "ld") == ["0700000009000000"]


def test_intr_memcpy_copies_only_its_length() -> None:
    run = run_lowered(MEMCPY, "f", [4], SimulatedRuntime())
    assert run.status == "ok", run.reason
    assert _reads(run, "ld") != ["0700000009000000"]  # the top half was never written


PRINT = """\
module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @printMemrefI32(i64, !llvm.ptr)
  llvm.func @f() {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c2 = llvm.mlir.constant(2 : i64) : i64
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %c5 = llvm.mlir.constant(5 : i32) : i32
    %p = llvm.call @malloc(%c8) : (i64) -> !llvm.ptr loc("a")
    %p4 = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, i32
    llvm.store %c5, %p4 : i32, !llvm.ptr
    %u = llvm.mlir.undef : !D
    %d0 = llvm.insertvalue %p, %u[0] : !D
    %d1 = llvm.insertvalue %p, %d0[1] : !D
    %d2 = llvm.insertvalue %c1, %d1[2] : !D
    %d3 = llvm.insertvalue %c1, %d2[3, 0] : !D
    %d4 = llvm.insertvalue %c1, %d3[4, 0] : !D
    %slot = llvm.alloca %c1 x !D : (i64) -> !llvm.ptr
    llvm.store %d4, %slot : !D, !llvm.ptr
    llvm.call @printMemrefI32(%c1, %slot) : (i64, !llvm.ptr) -> () loc("print")
    llvm.return
  }
}
""".replace("!D", "!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>")


def test_printing_reads_the_view_the_stored_descriptor_describes() -> None:
    # offset 1, one element: the second i32 of the buffer, read at the call.
    run = run_lowered(PRINT, "f", [], SimulatedRuntime())
    assert run.status == "ok", run.reason
    assert _reads(run, "print") == ["05000000"]


# -- kernels: math and printf --------------------------------------------------------
KERNEL = """\
gpu.module @k {
  gpu.func @m(%buf: memref<8xf32>, %ints: memref<2xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %x = memref.load %buf[%c0] : memref<8xf32>
    %e = math.exp %x : f32
    %r = math.rsqrt %x : f32
    %s, %c = "math.sincos"(%x) : (f32) -> (f32, f32)
    %f = math.fma %x, %x, %x : f32
    %l = math.log %e : f32
    memref.store %e, %buf[%c0] : memref<8xf32>
    memref.store %r, %buf[%c1] : memref<8xf32>
    memref.store %s, %buf[%c2] : memref<8xf32>
    memref.store %c, %buf[%c3] : memref<8xf32>
    memref.store %f, %buf[%c4] : memref<8xf32>
    memref.store %l, %buf[%c5] : memref<8xf32>
    %i = memref.load %ints[%c0] : memref<2xi32>
    %n = math.ctpop %i : i32
    %z = math.ctlz %i : i32
    "gpu.printf"(%n) <{format = "%d"}> : (i32) -> ()
    memref.store %n, %ints[%c0] : memref<2xi32>
    memref.store %z, %ints[%c1] : memref<2xi32>
    gpu.return
  }
}
"""


class _Memory:
    def __init__(self, data: bytearray) -> None:
        self.data = data

    def load(self, ptr: int, nbytes: int) -> bytes | None:
        return bytes(self.data[ptr:ptr + nbytes])

    def store(self, ptr: int, data: bytes) -> None:
        self.data[ptr:ptr + len(data)] = data


def test_kernel_math_and_printf() -> None:
    kernel = load_kernel(KERNEL, "k::m")
    mem = _Memory(bytearray(struct.pack("<8f", 0.5, *[0.0] * 7) + struct.pack("<2i", 0xF0F, 0)))
    kernel.run((1, 1, 1), (1, 1, 1), [MemRefView(0, 0, (8,), (1,), "f32"),
                                      MemRefView(32, 0, (2,), (1,), "i32")], mem)
    got = struct.unpack("<8f", mem.data[:32])
    e = round_f32(math.exp(0.5))
    assert got[:6] == (e, round_f32(1 / math.sqrt(0.5)), round_f32(math.sin(0.5)),
                       round_f32(math.cos(0.5)), round_f32(0.75), round_f32(math.log(e)))
    assert struct.unpack("<2i", mem.data[32:40]) == (8, 20)


def _nearest_f32(exact: Fraction) -> float:
    """The f32 nearest `exact` (ties to even), by comparing neighbours exactly."""
    guess = round_f32(float(exact))
    best = None
    for cand in (math.nextafter(guess, -math.inf), guess, math.nextafter(guess, math.inf)):
        c = round_f32(cand)
        d = abs(Fraction(c) - exact)
        key = (d, struct.unpack("<I", struct.pack("<f", c))[0] & 1)
        if best is None or key < best[0]:
            best = (key, c)
    assert best is not None
    return best[1]


def test_f32_fma_rounds_once() -> None:
    rng = random.Random(27)
    for _ in range(2000):
        a, b, c = (round_f32(rng.uniform(-4, 4) * 2.0 ** rng.randint(-30, 30))
                   for _ in range(3))
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        assert round_f32(fma(a, b, c, "f32")) == _nearest_f32(exact), (a, b, c)


def test_kernel_math_ieee_edges() -> None:
    from gpu_alloc_verify.oracles.kernel_math import UNARY, _powf

    assert UNARY["math.log"](0.0) == -math.inf
    assert math.isnan(UNARY["math.log"](-1.0))
    assert UNARY["math.exp"](1000.0) == math.inf
    assert UNARY["math.rsqrt"](-0.0) == -math.inf
    assert math.copysign(1, UNARY["math.ceil"](-0.5)) == -1
    assert UNARY["math.round"](2.5) == 3.0 and UNARY["math.roundeven"](2.5) == 2.0
    assert _powf(-0.0, -3.0) == -math.inf and _powf(-2.0, 0.5) != _powf(-2.0, 0.5)


# -- un-outlined gpu.launch ----------------------------------------------------------
SUB = """\
func.func @sub(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %y = memref.load %b[%tx] : memref<?xf32>
    %last = arith.subi %n, %c1 : index
    %x = memref.load %a[%last] : memref<?xf32>
    %d = arith.subf %y, %x : f32
    memref.store %d, %a[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
"""


def test_outlining_order_is_first_use_in_a_post_order_walk() -> None:
    from gpu_alloc_verify.oracles.source_xdsl.launch import plan
    from gpu_alloc_verify.oracles.source_xdsl.machine import parse
    from gpu_alloc_verify.verify.source.user_file import from_text

    need_mlir_opt(19)
    module = parse(from_text(SUB, "sub.mlir", need_mlir_opt(19)).text)
    launch = next(op for op in module.walk()
                  if getattr(getattr(op, "op_name", None), "data", op.name) == "gpu.launch")
    fn = launch.parent_op()
    a, b = fn.regions[0].blocks[0].args
    n = next(op for op in fn.walk() if op.name == "memref.dim").results[0]
    c1 = launch.operands[1]
    # As mlir-opt-19 and -22 outline it: (%b, %n, %c1, %a); no sinking.
    assert plan(launch) == [b, n, c1, a]


def test_an_un_outlined_launch_is_decided_with_outlinings_order(tmp_path: Path) -> None:
    # b - a is not a - b: were the two sides to pass %a and %b in different
    # orders, the outcomes would differ.
    need_mlir_opt(19)
    path = tmp_path / "sub.mlir"
    path.write_text(SUB)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_alloc_verify", "check", str(path), "--lowering",
         "mlir-opt-19", "--invariant", "differential", "--json", "--pipeline",
         "gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"],
        capture_output=True, text=True, timeout=600)
    import json

    counts = json.loads(proc.stdout)["by_lowering"]["mlir-opt-19"]["differential"]
    assert counts["holds"] == 1, proc.stdout[-2000:]
