"""Values and types of the LLVM-dialect subset the lowered-IR interpreter runs.

Integers are Python ints kept modulo 2**width (unsigned; `signed` views them
as two's complement), pointers are ints, floats are floats, and LLVM structs
and arrays are `Agg`s keyed by position path.  Types are read by their printed
form, so registered and generic (unregistered) ops are handled alike.  Types
and attributes of `verify.ir.fastparse`'s model (type text, its own attribute
objects) are read by `oracles.fast_ir`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute

from gpu_alloc_verify.oracles import fast_ir
from gpu_alloc_verify.oracles.fast_ir import IRAttribute
from gpu_alloc_verify.verify.ir.protocols import IROp
from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

# Something the interpreter does not model (the message names it): the run
# ends "unsupported".
Unsupported = InterpreterDeclined


@dataclass
class Agg:
    """An LLVM struct/array value: leaves keyed by position path."""

    items: dict[tuple[int, ...], LLVMValue] = field(default_factory=dict)
    default: int | None = None  # None for undef/poison, 0 for llvm.mlir.zero

    def insert(self, pos: tuple[int, ...], value: LLVMValue) -> Agg:
        items = dict(self.items)
        if isinstance(value, Agg):
            items = {k: v for k, v in items.items() if k[: len(pos)] != pos}
            items.update({pos + k: v for k, v in value.items.items()})
        else:
            items[pos] = value
        return Agg(items, self.default)

    def extract(self, pos: tuple[int, ...]) -> LLVMValue:
        if pos in self.items:
            return self.items[pos]
        sub = {k[len(pos):]: v for k, v in self.items.items() if k[: len(pos)] == pos}
        return Agg(sub, self.default) if sub else self.default

    def int_at(self, pos: tuple[int, ...]) -> int:
        """The integer member at `pos` (a memref descriptor's pointers, offset,
        sizes and strides); an undef one reads 0."""
        value = self.extract(pos)
        if isinstance(value, Agg):  # what int() of it raises
            raise TypeError(f"int() argument must be a real number, not 'Agg' (at {pos})")
        return int(value or 0)


# A value the interpreter holds: an integer or pointer (an int modulo 2**width),
# a float, an LLVM struct or array (`Agg`), None for undef/poison.
LLVMValue: TypeAlias = int | float | Agg | None

# -- types ------------------------------------------------------------------
# fast_ir's scalars, by xDSL's printed names (an LLVM pointer prints in full).
SCALAR_BYTES = {**fast_ir.SCALAR_BYTES, "!llvm.ptr": 8}
FLOAT_FMT = fast_ir.FLOAT_FMT


def type_name(t: Attribute | str) -> str:
    s = str(t)
    return "!llvm.ptr" if s.startswith("!llvm.ptr") else s


def int_width(t: Attribute | str) -> int | None:
    """The bits of an integer, `index` or pointer type; None for any other type."""
    name = type_name(t)
    if name in ("index", "!llvm.ptr"):
        return 64
    if name.startswith("i") and name[1:].isdigit():
        return int(name[1:])
    return None


def layout(t: Attribute | str) -> tuple[int, int]:
    """(size, alignment) in bytes, natural alignment as on x86-64."""
    if isinstance(t, str):
        return fast_ir.layout(t)
    name = type_name(t)
    if name in SCALAR_BYTES:
        n = SCALAR_BYTES[name]
        return n, n
    elem = getattr(t, "type", None)
    count = getattr(t, "size", None)
    if elem is not None and count is not None:  # !llvm.array<N x T>
        size, align = layout(elem)
        return size * int(getattr(count, "data", count)), align
    types = getattr(t, "types", None)
    if types is not None:  # !llvm.struct<(...)>
        off, max_align = 0, 1
        for ft in types.data:
            size, align = layout(ft)
            off = -(-off // align) * align + size
            max_align = max(max_align, align)
        return -(-off // max_align) * max_align, max_align
    raise Unsupported(f"no layout for type {name}")


def field_offset(t: Attribute | str, index: int) -> tuple[int, Attribute | str]:
    if isinstance(t, str):
        found = fast_ir.field_offset(t, index)
        if found is None:
            raise Unsupported(f"struct index {index} out of range")
        return found
    types = getattr(t, "types", None)
    if types is not None:
        off = 0
        for i, ft in enumerate(types.data):
            size, align = layout(ft)
            off = -(-off // align) * align
            if i == index:
                return off, ft
            off += size
        raise Unsupported(f"struct index {index} out of range")
    elem = getattr(t, "type", None)
    if elem is None:
        raise Unsupported(f"cannot index into {type_name(t)}")
    return index * layout(elem)[0], elem


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def bf16_bits(value: float) -> int:
    """The bf16 bits of a float: its f32 bits rounded to the upper half (ties to even)."""
    bits = int.from_bytes(struct.pack("<f", value), "little")
    if (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF:  # NaN: keep it quiet
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits: int) -> float:
    return float(struct.unpack("<f", ((bits & 0xFFFF) << 16).to_bytes(4, "little"))[0])


def members(t: Attribute | str) -> Sequence[Attribute | str] | None:
    """The field types of a struct, one element type per element of an
    array; None for a scalar type."""
    if isinstance(t, str):
        return fast_ir.members(t)
    types = getattr(t, "types", None)
    if types is not None:
        return list(types.data)
    elem, count = getattr(t, "type", None), getattr(t, "size", None)
    if elem is not None and count is not None:
        return [elem] * int(getattr(count, "data", count))
    return None


def decode(data: bytes, t: Attribute | str) -> int | float | Agg:
    fields = members(t)
    if fields is not None:  # an aggregate: each member from its own bytes
        out = Agg()
        for k, ft in enumerate(fields):
            off = field_offset(t, k)[0]
            out = out.insert((k,), decode(data[off:off + layout(ft)[0]], ft))
        return out
    name = type_name(t)
    if name == "bf16":
        return bf16_value(int.from_bytes(data, "little"))
    if name in FLOAT_FMT:
        return struct.unpack(FLOAT_FMT[name], data)[0]
    return int.from_bytes(data, "little")


def encode(value: LLVMValue, t: Attribute | str) -> bytes:
    fields = members(t)
    if fields is not None:  # an aggregate (a memref descriptor stored for a call)
        out = bytearray(layout(t)[0])  # padding and undef members are zero bytes
        for k, ft in enumerate(fields):
            part = value.extract((k,)) if isinstance(value, Agg) else None
            off = field_offset(t, k)[0]
            data = encode(part, ft)
            out[off:off + len(data)] = data
        return bytes(out)
    if isinstance(value, Agg):
        raise Unsupported(f"an aggregate value stored as {type_name(t)}")
    name = type_name(t)
    if name == "bf16":
        bits = bf16_bits(value) if isinstance(value, float) else int(value or 0)
        return (bits & 0xFFFF).to_bytes(2, "little")
    if name in FLOAT_FMT:
        return struct.pack(FLOAT_FMT[name], float(value or 0.0))
    n = layout(t)[0]
    return (int(value or 0) & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def prop(op: IROp, name: str) -> IRAttribute | None:
    """Property or attribute `name` of an xDSL op or a `verify.ir.fastparse` one."""
    props = getattr(op, "properties", {})
    if name in props:
        return props[name]
    return op.attributes.get(name)


def ints(attr: IRAttribute | None) -> tuple[int, ...]:
    if attr is None:
        return ()
    if fast_ir.is_fast(attr):
        return fast_ir.int_list(attr)
    get_values = getattr(attr, "get_values", None)
    if get_values is not None:
        return tuple(int(v) for v in get_values())
    return tuple(int(getattr(a, "data", getattr(getattr(a, "value", None), "data", 0)))
                 for a in getattr(attr, "data", ()))


def constant_value(attr: IRAttribute | None) -> int | float:
    if isinstance(attr, IntegerAttr):
        w = int_width(attr.type)
        if w is None:
            raise Unsupported(f"not an integer type: {type_name(attr.type)}")
        return int(attr.value.data) & ((1 << w) - 1)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if fast_ir.is_fast(attr):
        return fast_ir.constant(attr)
    raise Unsupported(f"constant {attr}")


ICMP: dict[int, Callable[[int, int, int], bool]] = {
    0: lambda a, b, w: a == b,
    1: lambda a, b, w: a != b,
    2: lambda a, b, w: signed(a, w) < signed(b, w),
    3: lambda a, b, w: signed(a, w) <= signed(b, w),
    4: lambda a, b, w: signed(a, w) > signed(b, w),
    5: lambda a, b, w: signed(a, w) >= signed(b, w),
    6: lambda a, b, w: a < b,
    7: lambda a, b, w: a <= b,
    8: lambda a, b, w: a > b,
    9: lambda a, b, w: a >= b,
}


def sdiv(a: int, b: int, w: int) -> int:
    x, y = signed(a, w), signed(b, w)
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


BINARY: dict[str, Callable[[int, int, int], int]] = {
    "add": lambda a, b, w: a + b,
    "sub": lambda a, b, w: a - b,
    "mul": lambda a, b, w: a * b,
    "udiv": lambda a, b, w: a // b,
    "sdiv": sdiv,
    "urem": lambda a, b, w: a % b,
    "srem": lambda a, b, w: signed(a, w) - sdiv(a, b, w) * signed(b, w),
    "and": lambda a, b, w: a & b,
    "or": lambda a, b, w: a | b,
    "xor": lambda a, b, w: a ^ b,
    "shl": lambda a, b, w: a << b,
    "lshr": lambda a, b, w: a >> b,
    "ashr": lambda a, b, w: signed(a, w) >> b,
    # arith's rounding divisions and min/max, which host code keeps when
    # only gpu-to-llvm runs (Python's // floors; ceil is -floor of -x).
    "ceildivu": lambda a, b, w: -(-a // b),
    "ceildivs": lambda a, b, w: -(-signed(a, w) // signed(b, w)),
    "floordivs": lambda a, b, w: signed(a, w) // signed(b, w),
    "umax": lambda a, b, w: max(a, b),
    "umin": lambda a, b, w: min(a, b),
    "smax": lambda a, b, w: max(signed(a, w), signed(b, w)),
    "smin": lambda a, b, w: min(signed(a, w), signed(b, w)),
}
ARITH_BINARY = {"addi": "add", "subi": "sub", "muli": "mul", "divui": "udiv",
                 "divsi": "sdiv", "remui": "urem", "remsi": "srem", "andi": "and",
                 "ori": "or", "xori": "xor", "shli": "shl", "shrui": "lshr", "shrsi": "ashr",
                 "ceildivui": "ceildivu", "ceildivsi": "ceildivs", "floordivsi": "floordivs",
                 "maxui": "umax", "minui": "umin", "maxsi": "smax", "minsi": "smin"}
