"""Floating-point values as kernels store them: rounding to a type, the
bits of a value and back (a NaN read from memory keeps its bits).  Shared by
the kernel interpreter and the CUDA C rendering of catalogue kernels."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

F16 = struct.Struct("<e")
F32 = struct.Struct("<f")
F64 = struct.Struct("<d")
U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
INF = math.inf
_BF16_MAX = math.ldexp(255, 120)  # (2 - 2**-7) * 2**127
CANONICAL_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}
FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


class StoredNaN(float):
    """A NaN read from memory: it keeps its bits until an op makes a new value."""

    bits: int
    ftype: str

    def __new__(cls, bits: int, ftype: str) -> StoredNaN:
        self = super().__new__(cls, math.nan)
        self.bits = bits
        self.ftype = ftype
        return self


def round_f32(x: float) -> float:
    try:
        return float(F32.unpack(F32.pack(x))[0])
    except OverflowError:
        return math.copysign(INF, x)


def round_f16(x: float) -> float:
    try:
        return float(F16.unpack(F16.pack(x))[0])
    except OverflowError:
        return math.copysign(INF, x)


def round_bf16(x: float) -> float:
    """The nearest bf16 (ties to even), computed from the double exactly."""
    if x != x or x == 0.0 or x in (INF, -INF):
        return x
    e = math.frexp(x)[1]
    if e > 128:
        return math.copysign(INF, x)
    q = max(e, -125) - 8  # the unit in the last place of the result (subnormals: 2**-133)
    k = abs(round(math.ldexp(x, -q)))  # exact scaling; round() ties to even
    r = math.ldexp(k, q)
    return math.copysign(r if r <= _BF16_MAX else INF, x)


ROUND: dict[str, Callable[[float], float]] = {
    "f16": round_f16, "bf16": round_bf16, "f32": round_f32, "f64": float,
}


def float_bits(x: float, ftype: str) -> int:
    """The bits of a float value (already of its type) as `ftype` stores it."""
    if x != x:
        return x.bits if isinstance(x, StoredNaN) and x.ftype == ftype else CANONICAL_NAN[ftype]
    if ftype == "f32":
        return int(U32.unpack(F32.pack(x))[0])
    if ftype == "f16":
        return int(U16.unpack(F16.pack(x))[0])
    if ftype == "bf16":
        return int(U32.unpack(F32.pack(x))[0]) >> 16
    return int(U64.unpack(F64.pack(x))[0])


def bits_float(bits: int, ftype: str) -> float:
    """The value of `ftype` bits (a NaN keeps them)."""
    if ftype == "f32":
        x = float(F32.unpack(U32.pack(bits))[0])
    elif ftype == "f16":
        x = float(F16.unpack(U16.pack(bits))[0])
    elif ftype == "bf16":
        x = float(F32.unpack(U32.pack(bits << 16))[0])
    else:
        x = float(F64.unpack(U64.pack(bits))[0])
    return StoredNaN(bits, ftype) if x != x else x
