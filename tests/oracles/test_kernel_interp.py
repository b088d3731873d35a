"""The kernel interpreter (`oracles.kernel_interp`), the catalogue's CUDA C
(`oracles.kernel_cuda`) and CupyRuntime's kernel glue against a fake CuPy.

Expected float results come from an independent exact reference
(`_round_ref`: the exact result as a Fraction, rounded to nearest-even by
hand), expected memory bytes from `struct` (bf16: the high half of the f32
of an exactly representable value).
"""

from __future__ import annotations

import ctypes
import math
import re
import shutil
import struct
import subprocess
import sys
import time
import types
from fractions import Fraction
from itertools import count
from pathlib import Path

import pytest

from gpu_alloc_verify.oracles.kernel_api import Kernel, KernelUnsupported, MemRefView, view_extent
from gpu_alloc_verify.oracles.kernel_cuda import C_TYPE, cuda_arg_values, cuda_source, entry_name
from gpu_alloc_verify.oracles.kernel_interp import (
    _accesses,
    _parse,
    catalogue_kernel,
    catalogue_ref,
    load_kernel,
    round_bf16,
)
from gpu_alloc_verify.verify.model.kernels import SHAPES, kernel_text
from gpu_alloc_verify.verify.model.program import KernelRef, MemRefType

ELEM_TYPES = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "index")
NBYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
          "index": 8}
FLOAT = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127),
         "f64": (53, -1022, 1023)}  # precision, min normal exponent, max exponent


class Memory:
    """A dict-backed DeviceMemory: allocations by base; every access outside
    one is refused (None / dropped) and remembered."""

    def __init__(self) -> None:
        self.allocs: dict[int, bytearray] = {}
        self.refused: list[tuple[str, int, int]] = []
        self.next = 0x10000

    def alloc(self, size: int, data: bytes = b"") -> int:
        base = self.next
        self.next += (size + 0xFFF) // 0x1000 * 0x1000 + 0x1000  # a gap after each
        buf = bytearray(size)
        buf[: len(data)] = data
        self.allocs[base] = buf
        return base

    def _find(self, ptr: int, n: int) -> tuple[bytearray, int] | None:
        for base, buf in self.allocs.items():
            if base <= ptr and ptr + n <= base + len(buf):
                return buf, ptr - base
        return None

    def load(self, ptr: int, nbytes: int) -> bytes | None:
        found = self._find(ptr, nbytes)
        if found is None:
            self.refused.append(("load", ptr, nbytes))
            return None
        buf, off = found
        return bytes(buf[off : off + nbytes])

    def store(self, ptr: int, data: bytes) -> None:
        found = self._find(ptr, len(data))
        if found is None:
            self.refused.append(("store", ptr, len(data)))
            return
        buf, off = found
        buf[off : off + len(data)] = data

    def bytes_at(self, base: int) -> bytes:
        return bytes(self.allocs[base])


# -- an independent reference ---------------------------------------------------
def _round_ref(q: Fraction, ftype: str) -> float:
    """`q` rounded to nearest-even in `ftype`, from first principles."""
    p, emin, emax = FLOAT[ftype]
    if q == 0:
        return 0.0
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - p + 1)
    k, rem = divmod(a, quantum)
    k = int(k)
    if rem * 2 > quantum or (rem * 2 == quantum and k % 2 == 1):
        k += 1
    r = k * quantum
    if r > (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax:
        return sign * math.inf
    return sign * float(r)


def _enc(value: float | int, elem: str) -> bytes:
    if elem == "bf16":
        return struct.pack("<f", value)[2:]  # exact for a bf16 value
    if elem in ("f16", "f32", "f64"):
        return struct.pack({"f16": "<e", "f32": "<f", "f64": "<d"}[elem], value)
    n = NBYTES[elem]
    return (int(value) & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def _inputs(elem: str, n: int, salt: int) -> list[float | int]:
    """Values exactly representable in `elem` whose sums and products need
    rounding in the narrow float types and wrap in the narrow integer ones."""
    if elem in FLOAT:
        return [(1 + Fraction((7 * k + salt) % 61, 64)) * (-1) ** k * 2 ** (k % 5 - 2)
                for k in range(n)]  # type: ignore[misc]
    bits = 8 * NBYTES[elem]
    return [((k * 37 + salt * 101) * (1 << (bits - 7)) + k) % (1 << bits) for k in range(n)]


def _op(elem: str, op: str, x: float | int | Fraction, y: float | int | Fraction) -> float | int:
    if elem in FLOAT:
        exact = Fraction(x) + Fraction(y) if op == "+" else Fraction(x) * Fraction(y)
        return _round_ref(exact, elem)
    mask = (1 << (8 * NBYTES[elem])) - 1
    return (int(x) + int(y) if op == "+" else int(x) * int(y)) & mask


def _expected(ref: KernelRef, values: dict[str, list], scalar: float | int,
              covered: set[int]) -> dict[str, list]:
    """Each buffer's values after the launch (element k covered or not)."""
    out = {name: list(vals) for name, vals in values.items()}
    elem = ref.type.elem
    for k in covered:
        if ref.shape == "fill":
            out["out"][k] = scalar
        elif ref.shape == "scale":
            out["buf"][k] = _op(elem, "*", values["buf"][k], scalar)
        elif ref.shape == "add":
            out["out"][k] = _op(elem, "+", values["a"][k], values["b"][k])
        else:
            out["dst"][k] = values["src"][k]
    return out


# -- the catalogue --------------------------------------------------------------
@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("elem", ELEM_TYPES)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_catalogue_kernels_over_grids_smaller_equal_larger(shape, elem, rank):
    dims = (6,) if rank == 1 else (5, 3)
    static = (None,) + dims[1:]  # a dynamic first dimension, like the generator's
    ref = KernelRef(shape, MemRefType(static, elem, 1))
    kernel = catalogue_kernel(ref)
    assert isinstance(kernel, Kernel)
    assert kernel.cuda is not None and entry_name(kernel.name) == ref.name
    spec = SHAPES[shape]
    assert kernel.reads == frozenset(spec.reads) and kernel.writes == frozenset(spec.writes)
    n = math.prod(dims)
    strides = (1,) if rank == 1 else (dims[1], 1)
    scalar = _inputs(elem, 3, 5)[2] if spec.scalar else None
    rows = dims[0]
    cols = dims[1] if rank == 2 else 1
    # grid.x * block.x threads along i: fewer than, as many as, more than the rows;
    # block.y along j likewise.  Threads that differ only in grid.y/z, block.z (and
    # block.y at rank 1) touch the same elements: the idempotent shapes try that.
    configs = [((1, 1, 1), (rows - 2, max(cols - 1, 1), 1)),
               ((rows, 1, 1), (1, cols, 1)),
               ((3, 1, 1), (4, cols + 2 if rank == 2 else 1, 1))]
    if shape != "scale":
        configs.append(((3, 2, 2), (4, cols + 1 if rank == 2 else 3, 2)))
    for grid, block in configs:
        mem = Memory()
        values = {b: _inputs(elem, n, salt) for salt, b in enumerate(spec.buffers)}
        bases = {b: mem.alloc(NBYTES[elem] * n, b"".join(_enc(v, elem) for v in values[b]))
                 for b in spec.buffers}
        views = [MemRefView(bases[b], 0, dims, strides, elem) for b in spec.buffers]
        args = [*views, *([scalar] if spec.scalar else [])]
        kernel.run(grid, block, args, mem)
        rows_hit = min(rows, grid[0] * block[0])
        cols_hit = min(cols, block[1]) if rank == 2 else 1
        covered = {i * cols + j for i in range(rows_hit) for j in range(cols_hit)}
        expected = _expected(ref, values, scalar if scalar is not None else 0, covered)
        for b in spec.buffers:
            want = b"".join(_enc(v, elem) for v in expected[b])
            assert mem.bytes_at(bases[b]) == want, (shape, elem, rank, grid, block, b)
        assert mem.refused == []


def test_strided_view_with_offset():
    """A column of a 4x3 buffer (stride 3, offset 1), as a subview's descriptor gives it."""
    kernel = catalogue_kernel(KernelRef("fill", MemRefType((4,), "i32")))
    mem = Memory()
    base = mem.alloc(48)
    kernel.run((1, 1, 1), (8, 1, 1), [MemRefView(base, 1, (4,), (3,), "i32"), 7], mem)
    got = struct.unpack("<12i", mem.bytes_at(base))
    assert got == (0, 7, 0, 0, 7, 0, 0, 7, 0, 0, 7, 0)


# -- rounding and wraparound ----------------------------------------------------
def _run_one(shape: str, elem: str, xs: list, scalar: float | int | None = None,
             ys: list | None = None) -> list:
    ref = KernelRef(shape, MemRefType((len(xs),), elem))
    kernel = catalogue_kernel(ref)
    mem = Memory()
    n = len(xs)
    a = mem.alloc(NBYTES[elem] * n, b"".join(_enc(v, elem) for v in xs))
    view = MemRefView(a, 0, (n,), (1,), elem)
    if shape == "scale":
        kernel.run((1, 1, 1), (n, 1, 1), [view, scalar], mem)
        out = a
    else:
        assert ys is not None
        b = mem.alloc(NBYTES[elem] * n, b"".join(_enc(v, elem) for v in ys))
        out = mem.alloc(NBYTES[elem] * n)
        kernel.run((1, 1, 1), (n, 1, 1), [view, MemRefView(b, 0, (n,), (1,), elem),
                                          MemRefView(out, 0, (n,), (1,), elem)], mem)
    data = mem.bytes_at(out)
    w = NBYTES[elem]
    chunks = [data[k : k + w] for k in range(0, len(data), w)]
    if elem == "bf16":
        return [struct.unpack("<f", b"\0\0" + c)[0] for c in chunks]
    if elem in ("f16", "f32", "f64"):
        return [struct.unpack({"f16": "<e", "f32": "<f", "f64": "<d"}[elem], c)[0]
                for c in chunks]
    return [int.from_bytes(c, "little") for c in chunks]


def test_f16_rounds_to_nearest_even_and_overflows_to_inf():
    xs = [2048.0, 2048.0, 65504.0, 0.1 + 0, 1.0, -65504.0]
    ys = [1.0, 3.0, 16.0, 0.2, 2.0 ** -24, -16.0]
    xs = [struct.unpack("<e", struct.pack("<e", x))[0] for x in xs]
    ys = [struct.unpack("<e", struct.pack("<e", y))[0] for y in ys]
    got = _run_one("add", "f16", xs, ys=ys)
    assert got[0] == 2048.0  # 2049 is a tie between 2048 and 2050: even
    assert got[1] == 2052.0  # 2051: tie, 2052 even
    assert got[2] == math.inf  # 65520 and above overflow
    assert got[3] == _round_ref(Fraction(xs[3]) + Fraction(ys[3]), "f16")
    assert got[4] == 1.0  # 1 + 2**-24: far below half an ulp
    assert got[5] == -math.inf


def test_bf16_rounds_to_nearest_even():
    one_ulp = 2.0 ** -7  # of 1.0 in bf16
    xs = [1.0, 1.0 + one_ulp, 1.0, 3.0e38, 2.0 ** -133]
    ys = [one_ulp / 2, one_ulp / 2, one_ulp * 0.75, 3.0e38, 2.0 ** -133]
    xs = [round_bf16(x) for x in xs]
    ys = [round_bf16(y) for y in ys]
    got = _run_one("add", "bf16", xs, ys=ys)
    assert got[0] == 1.0  # tie: down to the even 1.0
    assert got[1] == 1.0 + 2 * one_ulp  # tie: up to the even neighbour
    assert got[2] == 1.0 + one_ulp
    assert got[3] == math.inf
    assert got[4] == 2.0 ** -132  # subnormals add exactly
    for x, y, g in zip(xs, ys, got, strict=True):
        assert g == _round_ref(Fraction(x) + Fraction(y), "bf16")


def test_bf16_rounding_of_subnormals_and_signs():
    q = 2.0 ** -133  # the least bf16 subnormal
    assert round_bf16(q / 2) == 0.0  # tie: to the even 0
    assert math.copysign(1.0, round_bf16(-q / 2)) == -1.0  # a negative zero
    assert round_bf16(3 * q / 2) == 2 * q  # tie: to the even 2q
    assert round_bf16(q * 0.75) == q
    assert round_bf16(-3.4e38) == -math.inf and round_bf16(3.39e38) == 255 * 2.0 ** 120


def test_rounding_functions_agree_with_the_exact_reference():
    import random

    from gpu_alloc_verify.oracles.kernel_interp import ROUND

    rng = random.Random(7)
    values = [rng.uniform(-2, 2) * 2.0 ** rng.randint(-150, 130) for _ in range(3000)]
    values += [(k + 0.5) * 2.0 ** e for k in range(0, 300, 7) for e in (-140, -20, 0, 100)]
    for ftype in ("f16", "bf16", "f32"):
        for x in values:
            assert ROUND[ftype](x) == _round_ref(Fraction(x), ftype), (ftype, x)


def test_f32_rounding_and_overflow():
    xs = [16777216.0, 3.0e38, 0.1, 1.0e-45]
    xs = [struct.unpack("<f", struct.pack("<f", x))[0] for x in xs]
    got = _run_one("scale", "f32", xs, scalar=3.0)
    assert got[0] == 50331648.0
    assert got[1] == math.inf
    assert got[2] == _round_ref(Fraction(xs[2]) * 3, "f32")
    assert got[3] == _round_ref(Fraction(xs[3]) * 3, "f32")  # a subnormal product
    # the scalar is rounded to f32 too: 0.1 is not 0.1
    got = _run_one("scale", "f32", [1.0], scalar=0.1)
    assert got == [struct.unpack("<f", struct.pack("<f", 0.1))[0]]


def test_f64_is_native():
    got = _run_one("add", "f64", [0.1, 1e308], ys=[0.2, 1e308])
    assert got == [0.1 + 0.2, math.inf]


def test_integer_wraparound():
    assert _run_one("add", "i8", [127, 255], ys=[1, 1]) == [128, 0]  # 127 + 1 = -128
    assert _run_one("scale", "i16", [300, 0x8000], scalar=300) == [(300 * 300) % 65536, 0]
    assert _run_one("add", "i64", [(1 << 64) - 1], ys=[2]) == [1]
    assert _run_one("scale", "index", [1 << 62], scalar=-2) == [(-(1 << 63)) % (1 << 64)]


def test_scalar_arguments_are_taken_modulo_their_width():
    assert _run_one("scale", "i8", [3], scalar=-1) == [253]
    assert _run_one("scale", "i8", [3], scalar=257) == [3]


def test_a_nan_keeps_its_bits_through_a_copy_and_ops_make_the_canonical_nan():
    kernel = catalogue_kernel(KernelRef("copy", MemRefType((2,), "f32")))
    mem = Memory()
    src = mem.alloc(8, bytes.fromhex("0100807f" "3412c0ff"))  # a signalling and a quiet NaN
    dst = mem.alloc(8)
    view = (2,), (1,), "f32"
    kernel.run((1, 1, 1), (2, 1, 1), [MemRefView(src, 0, *view), MemRefView(dst, 0, *view)],
               mem)
    assert mem.bytes_at(dst) == bytes.fromhex("0100807f" "3412c0ff")
    got = _run_one("scale", "f32", [math.inf], scalar=0.0)
    assert struct.pack("<f", got[0]) == bytes.fromhex("ffffff7f")


# -- memory errors reach the runtime -------------------------------------------
def test_out_of_bounds_accesses_reach_device_memory():
    """A view that claims more than the allocation holds (a lowering's bug): the
    kernel's own bounds check passes, the runtime refuses the access."""
    kernel = catalogue_kernel(KernelRef("copy", MemRefType((None,), "i32")))
    mem = Memory()
    src = mem.alloc(16, bytes(range(16)))
    dst = mem.alloc(16)
    kernel.run((1, 1, 1), (8, 1, 1), [MemRefView(src, 0, (6,), (1,), "i32"),
                                      MemRefView(dst, 0, (6,), (1,), "i32")], mem)
    assert mem.refused == [("load", src + 16, 4), ("store", dst + 16, 4),
                           ("load", src + 20, 4), ("store", dst + 20, 4)]
    assert mem.bytes_at(dst) == bytes(range(16))  # the in-bounds elements were copied


def test_a_refused_load_reads_zeros_and_the_thread_goes_on():
    kernel = catalogue_kernel(KernelRef("scale", MemRefType((None,), "i32")))
    mem = Memory()
    buf = mem.alloc(4, (5).to_bytes(4, "little"))
    kernel.run((1, 1, 1), (2, 1, 1), [MemRefView(buf, 0, (2,), (1,), "i32"), 3], mem)
    assert mem.bytes_at(buf) == (15).to_bytes(4, "little")
    assert mem.refused == [("load", buf + 4, 4), ("store", buf + 4, 4)]


def test_a_negative_index_wraps_to_a_huge_address():
    text = """gpu.func @neg(%m: memref<4xi8>) kernel {
      %c = arith.constant -1 : index
      %v = arith.constant 9 : i8
      memref.store %v, %m[%c] : memref<4xi8>
      gpu.return
    }"""
    mem = Memory()
    base = mem.alloc(4)
    load_kernel(text, "neg").run((1, 1, 1), (1, 1, 1), [MemRefView(base, 0, (4,), (1,), "i8")],
                                 mem)
    assert mem.refused == [("store", base - 1, 1)]


# -- what is not modelled ---------------------------------------------------------
@pytest.mark.parametrize(("body", "named"), [
    ("%x = gpu.lane_id\n", "gpu.lane_id"),
    ("gpu.barrier\n", "gpu.barrier"),
    ("%c = arith.constant 1.0 : f32\n%w = arith.constant 32 : i32\n"
     "%o = arith.constant 1 : i32\n"
     "%s, %ok = gpu.shuffle xor %c, %o, %w : f32\n", "gpu.shuffle"),
    ("%c0 = arith.constant 0 : index\n%v = arith.constant 1.0 : f32\n"
     "%r = memref.atomic_rmw addf %v, %m[%c0] : (f32, memref<4xf32>) -> f32\n",
     "memref.atomic_rmw"),
    ('"foo.bar"() : () -> ()\n', "foo.bar"),
    # math.exp and friends are modelled (`kernel_math`); cbrt is not.
    ("%v = arith.constant 1.0 : f32\n%e = math.cbrt %v : f32\n", "math.cbrt"),
    ("%s = memref.alloca() : memref<4xf32>\n", "memref.alloca"),
    # 1-D vectors are modelled (`kernel_vector`); a 2-D one is not.
    ("%v = arith.constant dense<1.0> : vector<2x2xf32>\n", "vector<2x2xf32>"),
])
def test_unmodelled_ops_are_named_at_load_time(body, named):
    text = f"gpu.func @k(%m: memref<4xf32>) kernel {{\n{body}gpu.return\n}}"
    with pytest.raises(KernelUnsupported, match=re.escape(named)):
        load_kernel(text, "kernels::k")


def test_an_op_xdsl_cannot_read_in_custom_form_is_named():
    text = """gpu.func @c(%m: memref<4xf32>) kernel {
      %a = arith.constant 3 : index
      %r = arith.index_castui %a : index to i32
      gpu.return
    }"""
    with pytest.raises(KernelUnsupported, match=r"kernel @c uses arith\.index_castui"):
        load_kernel(text, "c")


def test_unmodelled_generic_gpu_op_is_named():
    text = """"gpu.func"() <{function_type = () -> ()}> ({
      %l = "gpu.lane_id"() : () -> index
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "b"} : () -> ()"""
    with pytest.raises(KernelUnsupported, match=r"kernel @b uses gpu\.lane_id"):
        load_kernel(text, "b")


def test_undefined_behaviour_at_run_time_is_unsupported():
    text = """gpu.func @div(%m: memref<1xi32>, %d: i32) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %m[%c0] : memref<1xi32>
      %q = arith.divsi %x, %d : i32
      memref.store %q, %m[%c0] : memref<1xi32>
      gpu.return
    }"""
    kernel = load_kernel(text, "div")
    mem = Memory()
    base = mem.alloc(4, (-7 % (1 << 32)).to_bytes(4, "little"))
    view = MemRefView(base, 0, (1,), (1,), "i32")
    kernel.run((1, 1, 1), (1, 1, 1), [view, 2], mem)
    assert mem.bytes_at(base) == (-3 % (1 << 32)).to_bytes(4, "little")  # rounds to zero
    with pytest.raises(KernelUnsupported, match="divides an integer by zero"):
        kernel.run((1, 1, 1), (1, 1, 1), [view, 0], mem)


def test_missing_symbol_is_a_value_error():
    with pytest.raises(ValueError, match="no gpu.func @nope"):
        load_kernel(kernel_text(KernelRef("fill", MemRefType((4,), "f32"))), "nope")


# -- hand-written kernels ---------------------------------------------------------
SAXPY = """"gpu.func"() <{function_type = (index, f32, memref<?xf32>, memref<?xf32>) -> ()}> ({
^bb0(%n: index, %a: f32, %x: memref<?xf32>, %y: memref<?xf32>):
  %0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %1 = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %2 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %3 = "arith.muli"(%0, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
  %4 = "arith.addi"(%3, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
  %5 = "arith.cmpi"(%4, %n) <{predicate = 2 : i64}> : (index, index) -> i1
  "cf.cond_br"(%5)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %6 = "memref.load"(%x, %4) : (memref<?xf32>, index) -> f32
  %7 = "memref.load"(%y, %4) : (memref<?xf32>, index) -> f32
  %8 = "arith.mulf"(%a, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  %9 = "arith.addf"(%8, %7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  "memref.store"(%9, %y, %4) : (f32, memref<?xf32>, index) -> ()
  "cf.br"()[^bb2] : () -> ()
^bb2:
  "gpu.return"() : () -> ()
}) {gpu.kernel, sym_name = "saxpy"} : () -> ()
"""


def test_saxpy_in_generic_form_with_cf_blocks():
    kernel = load_kernel(SAXPY, "saxpy")
    assert [p.kind for p in kernel.params] == ["scalar", "scalar", "memref", "memref"]
    assert kernel.reads == {2, 3} and kernel.writes == {3} and kernel.cuda is None
    mem = Memory()
    xs = [struct.unpack("<f", struct.pack("<f", 0.1 * k))[0] for k in range(10)]
    x = mem.alloc(40, struct.pack("<10f", *xs))
    y = mem.alloc(40, struct.pack("<10f", *([1.0] * 10)))
    views = [MemRefView(p, 0, (10,), (1,), "f32") for p in (x, y)]
    kernel.run((3, 1, 1), (4, 1, 1), [8, 1.5, *views], mem)
    got = struct.unpack("<10f", mem.bytes_at(y))
    for k in range(10):
        want = 1.0
        if k < 8:  # mulf, then addf: each rounded (no fused multiply-add)
            want = _round_ref(Fraction(_round_ref(Fraction(1.5) * Fraction(xs[k]), "f32"))
                              + 1, "f32")
        assert got[k] == want


TWO_D = """gpu.module @kernels {
  gpu.func @transpose(%in: memref<?x?xi32>, %out: memref<?x?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %dx = gpu.block_dim x
    %dy = gpu.block_dim y
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %i0 = arith.muli %bx, %dx : index
    %i = arith.addi %i0, %tx : index
    %j0 = arith.muli %by, %dy : index
    %j = arith.addi %j0, %ty : index
    %n = memref.dim %in, %c0 : memref<?x?xi32>
    %m = memref.dim %in, %c1 : memref<?x?xi32>
    %ok1 = arith.cmpi ult, %i, %n : index
    %ok2 = arith.cmpi ult, %j, %m : index
    %ok = arith.andi %ok1, %ok2 : i1
    scf.if %ok {
      %v = memref.load %in[%i, %j] : memref<?x?xi32>
      memref.store %v, %out[%j, %i] : memref<?x?xi32>
    }
    gpu.return
  }
  gpu.func @loops(%out: memref<?xi64>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i64
    %tx = gpu.thread_id x
    %s = scf.for %k = %c0 to %tx step %c1 iter_args(%acc = %z) -> (i64) {
      %kk = arith.index_cast %k : index to i64
      %a2 = arith.addi %acc, %kk : i64
      scf.yield %a2 : i64
    }
    %w:2 = scf.while (%p = %c1, %q = %c0) : (index, index) -> (index, index) {
      %c = arith.cmpi ult, %p, %tx : index
      scf.condition(%c) %p, %q : index, index
    } do {
    ^bb0(%p2: index, %q2: index):
      %p3 = arith.addi %p2, %p2 : index
      %q3 = arith.addi %q2, %c1 : index
      scf.yield %p3, %q3 : index, index
    }
    %wq = arith.index_cast %w#1 : index to i64
    %big = arith.constant 1000 : i64
    %wm = arith.muli %wq, %big : i64
    %r = arith.addi %s, %wm : i64
    memref.store %r, %out[%tx] : memref<?xi64>
    gpu.return
  }
}
"""


def test_two_dimensional_kernel_with_block_id_y():
    kernel = load_kernel(TWO_D, "kernels::transpose")
    assert kernel.name == "kernels::transpose"
    assert kernel.reads == {0} and kernel.writes == {1}
    mem = Memory()
    src = mem.alloc(60, b"".join((10 * i + j).to_bytes(4, "little")
                                 for i in range(3) for j in range(5)))
    dst = mem.alloc(60)
    kernel.run((2, 3, 1), (2, 2, 1), [MemRefView(src, 0, (3, 5), (5, 1), "i32"),
                                      MemRefView(dst, 0, (5, 3), (3, 1), "i32")], mem)
    got = struct.unpack("<15i", mem.bytes_at(dst))
    assert got == tuple(10 * i + j for j in range(5) for i in range(3))


def test_scf_for_and_while_with_carried_values():
    kernel = load_kernel(TWO_D, "@kernels::@loops")
    mem = Memory()
    out = mem.alloc(72)
    kernel.run((1, 1, 1), (9, 1, 1), [MemRefView(out, 0, (9,), (1,), "i64")], mem)
    got = struct.unpack("<9q", mem.bytes_at(out))
    # sum(range(t)) + 1000 * (doublings of 1 until it reaches t)
    assert got == tuple(t * (t - 1) // 2 + 1000 * max(0, math.ceil(math.log2(t)) if t else 0)
                        for t in range(9))


CF_LOOP = """gpu.func @tri(%out: memref<8xi32>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %t = gpu.thread_id x
  cf.br ^loop(%c0, %z : index, i32)
^loop(%k: index, %acc: i32):
  %more = arith.cmpi ule, %k, %t : index
  cf.cond_br %more, ^body, ^done
^body:
  %k32 = arith.index_cast %k : index to i32
  %acc2 = arith.addi %acc, %k32 : i32
  %k2 = arith.addi %k, %c1 : index
  cf.br ^loop(%k2, %acc2 : index, i32)
^done:
  memref.store %acc, %out[%t] : memref<8xi32>
  gpu.return
}"""


def test_cf_loop_with_block_arguments():
    kernel = load_kernel(CF_LOOP, "tri")
    mem = Memory()
    out = mem.alloc(32)
    kernel.run((1, 1, 1), (8, 1, 1), [MemRefView(out, 0, (8,), (1,), "i32")], mem)
    assert struct.unpack("<8i", mem.bytes_at(out)) == tuple(t * (t + 1) // 2 for t in range(8))


def test_an_endless_loop_stops_with_kernel_unsupported(monkeypatch):
    monkeypatch.setattr("gpu_alloc_verify.oracles.kernel_interp.STEP_LIMIT", 1000)
    text = CF_LOOP.replace("%more = arith.cmpi ule, %k, %t : index",
                           "%more = arith.cmpi ule, %c0, %t : index").replace("@tri", "@spin")
    kernel = load_kernel(text, "spin")
    with pytest.raises(KernelUnsupported, match="loop iterations"):
        kernel.run((1, 1, 1), (1, 1, 1), [MemRefView(Memory().alloc(32), 0, (8,), (1,), "i32")],
                   Memory())


def test_casts_selects_and_comparisons():
    results = [  # (ops computing %r, its type, the i32 stored)
        ("%r = arith.extsi %a : i8 to i32", -3),
        ("%r = arith.extui %a : i8 to i32", 253),
        ("%w = arith.constant -2.5 : f32\n%r = arith.fptosi %w : f32 to i32", -2),
        ("%w = arith.constant 1.0e10 : f32\n%r = arith.fptosi %w : f32 to i32", 2**31 - 1),
        ("%w = arith.constant -1.0 : f32\n%r = arith.fptoui %w : f32 to i32", 0),
        ("%x = arith.extsi %a : i8 to i32\n%y = arith.extui %a : i8 to i32\n"
         "%r = arith.maxsi %x, %y : i32", 253),
        ("%x = arith.extsi %a : i8 to i32\n%two = arith.constant 2 : i32\n"
         "%r = arith.shrsi %x, %two : i32", -1),
        ("%x = arith.extsi %a : i8 to i32\n%big = arith.constant 40 : i32\n"
         "%r = arith.shli %x, %big : i32", 0),
        ("%c = arith.cmpi slt, %a, %b : i8\n%r = arith.extui %c : i1 to i32", 1),
        ("%c = arith.cmpi ult, %a, %b : i8\n%s = arith.select %c, %a, %b : i8\n"
         "%r = arith.extsi %s : i8 to i32", 5),
        ("%x = arith.extsi %a : i8 to i32\n%f = arith.sitofp %x : i32 to f32\n"
         "%h = arith.truncf %f : f32 to f16\n%e = arith.extf %h : f16 to f32\n"
         "%r = arith.fptosi %e : f32 to i32", -3),
        ("%h = arith.constant 2.5 : f32\n%z = arith.constant 0.0 : f32\n"
         "%i = arith.divf %h, %z : f32\n%n = arith.subf %i, %i : f32\n"
         "%c = arith.cmpf uno, %n, %n : f32\n%r = arith.extui %c : i1 to i32", 1),
        ("%x = arith.extsi %a : i8 to i32\n%two = arith.constant 2 : i32\n"
         "%r = arith.remsi %x, %two : i32", -1),
        ("%x = arith.extsi %a : i8 to i32\n%two = arith.constant 2 : i32\n"
         "%r = arith.floordivsi %x, %two : i32", -2),
        ("%x = arith.constant 1.0e-3 : f64\n%f = arith.truncf %x : f64 to bf16\n"
         "%r = arith.bitcast %f : bf16 to i16\n", None),
        ("%x = arith.index_cast %a : i8 to index\n"  # xDSL reads it in generic form only
         '%r = "arith.index_castui"(%x) : (index) -> i32', 2**32 - 3),
        ('%x = "arith.index_castui"(%a) : (i8) -> index\n%r = arith.index_cast %x : index to i32',
         253),
    ]
    for body, want in results:
        if want is None:  # bf16 bits: widen them to i32 for the store
            body += "%r2 = arith.extui %r : i16 to i32"
            want = struct.unpack("<I", struct.pack("<f", round_bf16(1.0e-3)))[0] >> 16
            name = "%r2"
        else:
            name = "%r"
        text = ("gpu.func @mix(%m: memref<1xi32>) kernel {\n"
                "%c0 = arith.constant 0 : index\n%a = arith.constant -3 : i8\n"
                f"%b = arith.constant 5 : i8\n{body}\n"
                f"memref.store {name}, %m[%c0] : memref<1xi32>\ngpu.return\n}}")
        mem = Memory()
        m = mem.alloc(4)
        load_kernel(text, "mix").run((1, 1, 1), (1, 1, 1), [MemRefView(m, 0, (1,), (1,), "i32")],
                                     mem)
        assert int.from_bytes(mem.bytes_at(m), "little") == want % 2**32, body


def test_hoisting_keeps_thread_and_block_values_apart():
    kernel = catalogue_kernel(KernelRef("scale", MemRefType((8,), "f32")))
    source = kernel.source  # type: ignore[attr-defined]
    launch_part, _, rest = source.partition("for bz in range(gdz):")
    block_part, _, thread_part = rest.partition("def _thread(tx, ty, tz):")
    assert "D0_0 = D0[0]" in launch_part  # memref.dim: once per launch
    assert "bx * bdx" in block_part and "tx" not in block_part  # once per block
    assert "load(" in thread_part and "+ tx)" in thread_part


# -- reads and writes -------------------------------------------------------------
def test_reads_and_writes_of_the_catalogue_and_other_uses():
    for shape, spec in SHAPES.items():
        k = catalogue_kernel(KernelRef(shape, MemRefType((4,), "i32")))
        assert (k.reads, k.writes) == (frozenset(spec.reads), frozenset(spec.writes))
    # a memref handed to an op the scan cannot see into counts as read and written
    m = "memref<4xf32>"
    text = f""""gpu.func"() <{{function_type = ({m}, {m}, {m}) -> ()}}> ({{
    ^bb0(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>):
      %c0 = "arith.constant"() <{{value = 0 : index}}> : () -> index
      %n = "memref.dim"(%a, %c0) : (memref<4xf32>, index) -> index
      "foo.use"(%b) : (memref<4xf32>) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, sym_name = "u"}} : () -> ()"""
    assert _accesses(_parse(text, "u")) == (frozenset({1}), frozenset({1}))
    with pytest.raises(KernelUnsupported, match="foo.use"):
        load_kernel(text, "u")


# -- catalogue names, generic forms and the cache --------------------------------
def test_catalogue_ref_reads_kernel_names():
    for ref in (KernelRef("scale", MemRefType((None, 4), "index", 1)),
                KernelRef("add", MemRefType((16,), "bf16")),
                KernelRef("copy", MemRefType((3, None), "i8", 2))):
        assert catalogue_ref(f"kernels::{ref.name}") == ref
        assert catalogue_ref(ref.name) == ref
    assert catalogue_ref("saxpy") is None
    assert catalogue_ref("scale_4xf128") is None


def test_generic_form_of_a_catalogue_kernel_gets_its_cuda(tmp_path):
    """mlir-opt's generic print of the catalogue text (value names %arg0..,
    properties, an empty else region) is the same kernel."""
    ref = KernelRef("add", MemRefType((None, 4), "bf16", 1))
    t = "memref<?x4xbf16, 1>"
    ov = "overflowFlags = #arith.overflow<none>"
    generic = f'''"gpu.module"() <{{sym_name = "kernels"}}> ({{
    "gpu.func"() <{{function_type = ({t}, {t}, {t}) -> ()}}> ({{
    ^bb0(%arg0: memref<?x4xbf16, 1>, %arg1: memref<?x4xbf16, 1>, %arg2: memref<?x4xbf16, 1>):
      %0 = "arith.constant"() <{{value = 0 : index}}> : () -> index
      %1 = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %2 = "gpu.block_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
      %3 = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %4 = "arith.muli"(%1, %2) <{{{ov}}}> : (index, index) -> index
      %5 = "arith.addi"(%4, %3) <{{{ov}}}> : (index, index) -> index
      %6 = "memref.dim"(%arg0, %0) : (memref<?x4xbf16, 1>, index) -> index
      %7 = "arith.cmpi"(%5, %6) <{{predicate = 6 : i64}}> : (index, index) -> i1
      %8 = "arith.constant"() <{{value = 1 : index}}> : () -> index
      %9 = "gpu.thread_id"() <{{dimension = #gpu<dim y>}}> : () -> index
      %10 = "memref.dim"(%arg0, %8) : (memref<?x4xbf16, 1>, index) -> index
      %11 = "arith.cmpi"(%9, %10) <{{predicate = 6 : i64}}> : (index, index) -> i1
      %12 = "arith.andi"(%7, %11) : (i1, i1) -> i1
      "scf.if"(%12) ({{
        %13 = "memref.load"(%arg0, %5, %9) : (memref<?x4xbf16, 1>, index, index) -> bf16
        %14 = "memref.load"(%arg1, %5, %9) : (memref<?x4xbf16, 1>, index, index) -> bf16
        %15 = "arith.addf"(%13, %14) <{{fastmath = #arith.fastmath<none>}}> : (bf16, bf16) -> bf16
        "memref.store"(%15, %arg2, %5, %9) : (bf16, memref<?x4xbf16, 1>, index, index) -> ()
        "scf.yield"() : () -> ()
      }}, {{
      }}) : (i1) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, sym_name = "{ref.name}", workgroup_attributions = 0 : i64}} : () -> ()
  }}) : () -> ()'''
    kernel = load_kernel(generic, f"kernels::{ref.name}")
    assert kernel.cuda == cuda_source(ref)
    # the same name with another body is not the catalogue's: no CUDA
    other = generic.replace('"arith.addf"', '"arith.subf"')
    assert load_kernel(other, f"kernels::{ref.name}").cuda is None


def test_loaded_kernels_are_cached():
    text = kernel_text(KernelRef("fill", MemRefType((4,), "f32")))
    assert load_kernel(text, "kernels::fill_4xf32") is load_kernel(text, "kernels::fill_4xf32")
    ref = KernelRef("copy", MemRefType((4,), "f32"))
    assert catalogue_kernel(ref) is catalogue_kernel(ref)


def test_view_extent():
    assert view_extent(MemRefView(0, 2, (3, 4), (4, 1), "f32")) == (8, 8 + 12 * 4)
    assert view_extent(MemRefView(0, 8, (3,), (-2,), "i16")) == (8, 18)
    assert view_extent(MemRefView(0, 0, (0, 4), (4, 1), "f32")) is None


def test_a_1024_thread_scale_launch_is_fast():
    kernel = catalogue_kernel(KernelRef("scale", MemRefType((1024,), "f32")))

    class Flat:
        def __init__(self) -> None:
            self.buf = bytearray(4096)

        def load(self, ptr: int, n: int) -> bytes:
            return bytes(self.buf[ptr - 0x1000 : ptr - 0x1000 + n])

        def store(self, ptr: int, data: bytes) -> None:
            self.buf[ptr - 0x1000 : ptr - 0x1000 + len(data)] = data

    mem = Flat()
    view = MemRefView(0x1000, 0, (1024,), (1,), "f32")
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        kernel.run((4, 1, 1), (256, 1, 1), [view, 2.0], mem)
        best = min(best, time.perf_counter() - start)
    assert best < 0.1, f"{best * 1e3:.1f} ms"  # about 2 ms when the machine is idle


# -- CUDA C -------------------------------------------------------------------------
ALL_REFS = [KernelRef(shape, MemRefType(dims, elem, space))
            for shape in sorted(SHAPES) for elem in ELEM_TYPES
            for dims, space in (((None,), None), ((4, None), 1))]

STUB_FP16 = """#pragma once
struct __half { unsigned short x; };
__half __hadd(__half, __half);
__half __hmul(__half, __half);
__half __ushort_as_half(unsigned short);
"""
STUB_BF16 = """#pragma once
struct __nv_bfloat16 { unsigned short x; };
__nv_bfloat16 __hadd(__nv_bfloat16, __nv_bfloat16);
__nv_bfloat16 __hmul(__nv_bfloat16, __nv_bfloat16);
__nv_bfloat16 __ushort_as_bfloat16(unsigned short);
"""
PRELUDE = """#include <cstring>
#include <cstdio>
#define __global__
struct uint3 { unsigned x, y, z; };
static uint3 blockIdx, blockDim, threadIdx;
static float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static double __longlong_as_double(long long u) { double f; std::memcpy(&f, &u, 8); return f; }
"""

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def _c_params(source: str, name: str) -> list[str]:
    start = source.index(f"void {name}(") + len(name) + 6
    head = source[start : source.index(")\n{")]
    return [p.strip().rsplit(" ", 1)[0] for p in head.split(",")]


def test_cuda_signature_matches_the_marshalled_arguments():
    codes = {"long long": "i64", "unsigned char": "u8", "unsigned short": "u16",
             "unsigned int": "u32", "unsigned long long": "u64"}
    for ref in ALL_REFS:
        source = cuda_source(ref)
        kernel = catalogue_kernel(ref)
        assert f'extern "C" __global__ void {ref.name}(' in source
        rank = len(ref.type.shape)
        n = 6
        views = [MemRefView(0x1000 * (k + 1), k, (n,) + (3,) * (rank - 1),
                            (3, 1)[2 - rank:], ref.type.elem)
                 for k in range(len(SHAPES[ref.shape].buffers))]
        args = [*views, *([1] if SHAPES[ref.shape].scalar else [])]
        values = cuda_arg_values(kernel.params, args)
        params = _c_params(source, ref.name)
        assert len(params) == len(values), ref
        for c_type, (code, value) in zip(params, values, strict=True):
            want = "u64" if c_type.endswith("*") else codes[c_type]
            assert code == want, (ref, c_type, code)
            assert 0 <= value < 2**64 if code != "i64" else -(2**63) <= value < 2**63
        assert ("cuda_fp16.h" in source) == (ref.type.elem == "f16")
        assert ("cuda_bf16.h" in source) == (ref.type.elem == "bf16")
        assert C_TYPE[ref.type.elem] + "* " in source


def test_scalars_travel_as_the_bits_of_their_type():
    kernel = catalogue_kernel(KernelRef("fill", MemRefType((4,), "f32")))
    view = MemRefView(0xABC0, 3, (4,), (2,), "f32")
    assert cuda_arg_values(kernel.params, [view, 1.5]) == [
        ("u64", 0xABC0), ("i64", 3), ("i64", 4), ("i64", 2), ("u32", 0x3FC00000)]
    bits = {"f16": ("u16", 0x3E00), "bf16": ("u16", 0x3FC0), "f64": ("u64", 0x3FF8 << 48)}
    for elem, want in bits.items():
        k = catalogue_kernel(KernelRef("fill", MemRefType((4,), elem)))
        assert cuda_arg_values(k.params, [view, 1.5])[-1] == want
    for elem, value, want in (("i8", -1, ("u8", 255)), ("i16", 70000, ("u16", 70000 - 65536)),
                              ("index", -1, ("u64", 2**64 - 1)), ("i64", -1, ("u64", 2**64 - 1))):
        k = catalogue_kernel(KernelRef("fill", MemRefType((4,), elem)))
        assert cuda_arg_values(k.params, [view, value])[-1] == want
    with pytest.raises(TypeError):
        cuda_arg_values(kernel.params, [1.5, view])


@needs_gxx
def test_cuda_sources_are_well_formed_cxx(tmp_path):
    (tmp_path / "cuda_fp16.h").write_text(STUB_FP16)
    (tmp_path / "cuda_bf16.h").write_text(STUB_BF16)
    (tmp_path / "prelude.h").write_text(PRELUDE)
    unit = tmp_path / "all.cu"
    unit.write_text("\n".join(cuda_source(ref) for ref in ALL_REFS))
    proc = subprocess.run(
        ["g++", "-std=c++14", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
         "-Wno-unused-function", "-Wno-unused-parameter", "-x", "c++",
         "-include", str(tmp_path / "prelude.h"), "-I", str(tmp_path), str(unit)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@needs_gxx
def test_cuda_sources_compute_what_the_interpreter_computes(tmp_path):
    """The float, double and integer kernels compiled by g++ and run on the CPU
    (every block and thread in turn), arguments marshalled by
    `cuda_arg_values`, give the interpreter's bytes."""
    refs = [r for r in ALL_REFS if r.type.elem not in ("f16", "bf16")]
    main: list[str] = []
    expected: list[str] = []
    for case, ref in enumerate(refs):
        elem, rank = ref.type.elem, len(ref.type.shape)
        spec = SHAPES[ref.shape]
        dims = (5,) if rank == 1 else (4, 3)
        n = math.prod(dims)
        mem = Memory()
        bases = [mem.alloc(NBYTES[elem] * (n + 2), b"".join(
            _enc(v, elem) for v in _inputs(elem, n + 2, salt))) for salt in range(len(
                spec.buffers))]
        strides = (1,) if rank == 1 else (dims[1], 1)
        views = [MemRefView(b, 1, dims, strides, elem) for b in bases]  # offset 1
        scalar = [_inputs(elem, 2, 9)[1]] if spec.scalar else []
        initial = [mem.bytes_at(b) for b in bases]
        grid, block = (2, 1, 1), (3, dims[1] + 1 if rank == 2 else 1, 1)
        catalogue_kernel(ref).run(grid, block, [*views, *scalar], mem)
        expected += [mem.bytes_at(b).hex() for b in bases]
        values = cuda_arg_values(catalogue_kernel(ref).params, [*views, *scalar])
        c_args = []
        buffers = iter(range(len(bases)))
        for code, value in values:
            if code == "u64" and value in bases:
                c_args.append(f"({C_TYPE[elem]}*)b{case}_{next(buffers)}")
            else:
                c_args.append(f"{value}{'LL' if code == 'i64' else 'ULL'}")
        main.append("  {")
        for k, data in enumerate(initial):
            init = ", ".join(str(x) for x in data)
            main.append(f"    alignas(8) static unsigned char b{case}_{k}[] = {{{init}}};")
        main.append(f"    launch({{{grid[0]}, {grid[1]}, {grid[2]}}}, "
                    f"{{{block[0]}, {block[1]}, {block[2]}}}, [&] {{ "
                    f"{ref.name}({', '.join(c_args)}); }});")
        for k in range(len(initial)):
            main.append(f"    dump(b{case}_{k}, sizeof b{case}_{k});")
        main.append("  }")
    unit = tmp_path / "run.cpp"
    unit.write_text(PRELUDE + "\n".join(cuda_source(r) for r in refs) + """
template <class F> static void launch(uint3 g, uint3 b, F f) {
  for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++)
  for (unsigned bx = 0; bx < g.x; bx++) for (unsigned tz = 0; tz < b.z; tz++)
  for (unsigned ty = 0; ty < b.y; ty++) for (unsigned tx = 0; tx < b.x; tx++) {
    blockIdx = {bx, by, bz}; blockDim = b; threadIdx = {tx, ty, tz}; f();
  }
}
static void dump(const unsigned char* p, unsigned long n) {
  for (unsigned long i = 0; i < n; i++) std::printf("%02x", p[i]);
  std::printf("\\n");
}
int main() {
""" + "\n".join(main) + "\n}\n")
    exe = tmp_path / "run"
    proc = subprocess.run(["g++", "-std=c++14", "-O0", "-ffp-contract=off", "-o", str(exe),
                           str(unit)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == expected


# -- CupyRuntime's kernel glue, on a fake CuPy -------------------------------------
class _FakeCudaRuntime(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("cupy.cuda.runtime")
        self.buffers: dict[int, ctypes.Array[ctypes.c_char]] = {}
        self.handles = count(0x1000, 0x10)
        self.calls: list[tuple] = []

    def getDeviceCount(self) -> int:  # noqa: N802 - CUDA's names
        return 1

    def getDevice(self) -> int:  # noqa: N802
        return 0

    def deviceGetAttribute(self, attr: int, device: int) -> int:  # noqa: N802
        return 1

    def streamCreateWithFlags(self, flags: int) -> int:  # noqa: N802
        return next(self.handles)

    def malloc(self, size: int) -> int:
        buf = ctypes.create_string_buffer(size)
        self.buffers[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)

    def free(self, ptr: int) -> None:
        del self.buffers[ptr]

    def pointerGetAttributes(self, ptr: int) -> types.SimpleNamespace:  # noqa: N802
        return types.SimpleNamespace(type=2)

    def memcpyAsync(self, dst: int, src: int, n: int, kind: int, stream: int) -> None:  # noqa: N802
        self.calls.append(("memcpyAsync", n, stream))
        ctypes.memmove(dst, src, n)

    def memcpy(self, dst: int, src: int, n: int, kind: int) -> None:
        ctypes.memmove(dst, src, n)

    def memsetAsync(self, ptr: int, value: int, n: int, stream: int) -> None:  # noqa: N802
        self.calls.append(("memsetAsync", value, n, stream))
        ctypes.memset(ptr, value, n)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.calls.append((name, *args))


@pytest.fixture
def fake_cupy(monkeypatch):
    runtime = _FakeCudaRuntime()
    launches: list[tuple] = []
    streams: list[int] = []

    class RawKernel:
        def __init__(self, code: str, name: str) -> None:
            self.code, self.name = code, name

        def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
            launches.append((self.name, grid, block, args, streams[-1] if streams else 0))

    class ExternalStream:
        def __init__(self, ptr: int) -> None:
            self.ptr = ptr

        def __enter__(self) -> ExternalStream:
            streams.append(self.ptr)
            return self

        def __exit__(self, *exc: object) -> None:
            streams.pop()

    cuda = types.ModuleType("cupy.cuda")
    cuda.runtime = runtime  # type: ignore[attr-defined]
    cuda.ExternalStream = ExternalStream  # type: ignore[attr-defined]
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda  # type: ignore[attr-defined]
    cupy.RawKernel = RawKernel  # type: ignore[attr-defined]
    numpy = types.ModuleType("numpy")
    for code in ("uint8", "uint16", "uint32", "uint64", "int64"):
        setattr(numpy, code, lambda v, code=code: (code, v))
    for name, module in (("cupy", cupy), ("cupy.cuda", cuda), ("cupy.cuda.runtime", runtime),
                         ("numpy", numpy)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr("gpu_alloc_verify.oracles.cupy_runtime._driver", lambda: None)
    monkeypatch.setattr("gpu_alloc_verify.oracles.cupy_runtime._RAW_KERNELS", {})
    runtime.launches = launches  # type: ignore[attr-defined]
    return runtime


def test_cupy_launch_runs_the_cuda_source_on_the_stream_and_marks_what_it_writes(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    rt = CupyRuntime()
    s = rt.stream_create()
    src, dst = rt.mem_alloc(32, s, False), rt.mem_alloc(32, s, False)
    ref = KernelRef("copy", MemRefType((None,), "i32"))
    kernel = catalogue_kernel(ref)
    views = [MemRefView(p, 0, (8,), (1,), "i32") for p in (src, dst)]
    rt.launch(kernel, (1, 1, 1), (5, 1, 1), views, s)  # 5 of the 8 elements
    (name, grid, block, args, stream), = fake_cupy.launches
    assert (name, grid, block, stream) == (ref.name, (1, 1, 1), (5, 1, 1), s)
    assert args[0] == ("uint64", src) and args[4] == ("uint64", dst)
    assert len(args) == len(cuda_arg_values(kernel.params, views))
    out = rt.outcome()
    assert out.errors == []
    assert out.allocations[1].contents == "00000000*5,????????*3"  # exactly 5 elements
    rt.close()


def test_cupy_launch_of_a_kernel_without_cuda_is_a_backend_error(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    rt = CupyRuntime()
    s = rt.stream_create()
    x, y = rt.mem_alloc(40, s, False), rt.mem_alloc(40, s, False)
    views = [MemRefView(p, 0, (10,), (1,), "f32") for p in (x, y)]
    rt.launch(load_kernel(SAXPY, "saxpy"), (1, 1, 1), (10, 1, 1), [10, 2.0, *views], s)
    assert fake_cupy.launches == []
    assert [(e.kind, e.call) for e in rt.errors] == [("backend-error", "launch @saxpy")]
    assert "no CUDA source" in rt.errors[0].detail
    rt.close()


def test_cupy_memset_of_8_and_64_bit_patterns(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    rt = CupyRuntime()
    s = rt.stream_create()
    buf = rt.mem_alloc(32, s, False)
    rt.memset8(buf, 0xAB, 8, s)
    rt.memset64(buf + 8, 0x0102030405060708, 2, s)
    rt.memset64(buf + 24, 0x7F7F7F7F7F7F7F7F, 1, s)  # one byte repeated: cudaMemsetAsync
    out = rt.outcome()
    assert out.errors == []
    assert out.allocations[0].contents == ("abababab*2,08070605,04030201,08070605,"
                                           "04030201,7f7f7f7f*2")
    kinds = [c[0] for c in fake_cupy.calls if c[0] in ("memsetAsync", "memcpyAsync")]
    assert kinds == ["memsetAsync", "memcpyAsync", "memsetAsync"]
    rt.close()


def test_cupy_host_memory_is_plain_process_memory(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    rt = CupyRuntime()
    h = rt.host_alloc(8)
    rt.host_write(h, b"\x01\x02\x03\x04")
    assert rt.host_read(h, 4) == b"\x01\x02\x03\x04"
    assert fake_cupy.buffers == {}  # nothing allocated on the "device"
    out = rt.outcome()
    assert out.allocations[0].kind == "host" and out.allocations[0].contents == "01020304,????????"
    rt.host_free(h)
    assert rt.outcome().allocations[0].live is False
    rt.close()


def test_scripts_gpu_differential_skips_without_cupy():
    script = Path(__file__).resolve().parents[2] / "scripts" / "gpu_differential.py"
    proc = subprocess.run([sys.executable, str(script), "--programs", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "skipped: no GPU/CuPy" in proc.stdout and "pip install cupy-cuda12x" in proc.stdout


def _script(monkeypatch, runtime_factory):
    """scripts/gpu_differential.py with a stand-in for CupyRuntime."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "gpu_differential.py"
    spec = importlib.util.spec_from_file_location("gpu_differential_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr("gpu_alloc_verify.oracles.cupy_runtime.cupy_available", lambda: True)
    monkeypatch.setattr("gpu_alloc_verify.oracles.cupy_runtime.CupyRuntime", runtime_factory)
    return module


def test_scripts_gpu_differential_agrees_with_a_faithful_stand_in(monkeypatch, capsys):
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    script = _script(monkeypatch, lambda: SimulatedRuntime("cuda", 1))
    assert script.main(["--programs", "6", "--json"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["programs"] == 6 and report["source"]["programs_disagreeing"] == 0
    assert report["source"]["runs"]["agree"] >= 6
    assert sum(report["lowered"]["gpu"].values()) == 6


def test_scripts_gpu_differential_reports_a_gpu_that_runs_no_kernel(monkeypatch, capsys):
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    class NoKernels(SimulatedRuntime):
        def _b_launch(self, *args, **kwargs) -> None:
            pass

    script = _script(monkeypatch, lambda: NoKernels("cuda", 0))
    assert script.main(["--programs", "6"]) == 1
    out = capsys.readouterr().out
    assert "first difference" in out and "allocations[" in out


def test_scripts_gpu_differential_runs_corpus_files_as_written(monkeypatch, capsys):
    """`--corpus`: the real-shaped files, lowered by mlir-opt-19 with their
    own pipelines, judged on the GPU's runtime and on the simulator's."""
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    script = _script(monkeypatch, lambda: SimulatedRuntime("cuda", 1))
    names = ["saxpy_sync_launch", "vector_add_async", "memset_16_32"]
    assert script.main(["--corpus", "--json", *names]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["corpus"] == "mlir-opt-19" and report["files_disagreeing"] == 0
    assert report["gpu"] == report["simulator"] == {"holds": 3}
