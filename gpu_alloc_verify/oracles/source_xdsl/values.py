"""Python values of the source interpreter: xDSL's scalars (`IntegerAttr`,
`FloatAttr`, as its arith implementations use), buffers as `MemRefView`s of
runtime memory, and tokens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, cast

from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, MemRefView
from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

INDEX_BITS: Final[Literal[64]] = 64  # gpu-to-llvm's index


class Unmodelled(InterpreterDeclined):
    """The module uses what the source interpreter does not model: unknown."""


class TooLarge(Exception):
    """One input drives the run past a budget (steps, bytes): that input is skipped."""


class Undefined(TooLarge):
    """One input breaks an op's precondition (a copy between shapes that
    differ): the program has no behaviour to compare there, so that input is
    skipped, as one past a budget is."""


# A scalar as xDSL's interpreters hold it.
Scalar: TypeAlias = IntegerAttr | FloatAttr


@dataclass(frozen=True)
class Token:
    """A completion fact: the event recorded after the op, and the token
    instances it implies (for which tokens the path leaves un-awaited)."""

    event: int
    instance: int
    implies: tuple[int, ...]  # the instances its op waited on (their closure: `State`)


# What an SSA value holds in a source run: a scalar, a buffer, a gpu token.
# (xDSL's `PythonValues` are untyped: `as_int`, `host_ops.view`, `state.token` check.)
SourceValue: TypeAlias = Scalar | MemRefView | Token


def type_text(t: Attribute) -> str:
    if isinstance(t, IndexType):
        return "index"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return str(t)


def elem_of(t: Attribute) -> str:
    """The element type name of a memref type, one `ELEM_BYTES` knows."""
    if not isinstance(t, MemRefType):
        raise Unmodelled(f"a buffer of type {t} (ranked memrefs only)")
    name = type_text(t.element_type)
    if name not in ELEM_BYTES:
        raise Unmodelled(f"memref element type {name}")
    return name


def as_int(v: object) -> int:
    """The integer an xDSL scalar (or a plain int/bool) holds; Unmodelled for
    any other value."""
    if isinstance(v, IntegerAttr):
        return int(v.value.data)
    if isinstance(v, bool | int):
        return int(v)
    raise Unmodelled(f"an integer expected, got {v!r}")


def scalar(value: int | float, t: Attribute) -> Scalar:
    """`value` as xDSL's interpreters hold a value of type `t`."""
    if isinstance(t, IndexType):
        return IntegerAttr(int(value), IntegerType(INDEX_BITS), truncate_bits=True)
    if isinstance(t, IntegerType):
        return IntegerAttr(int(value), t, truncate_bits=True)
    return FloatAttr(float(value), cast(AnyFloat, t))  # a float type


def plain(v: Scalar | int, t: Attribute) -> int | float:
    """A scalar as the kernel and lowered interpreters take it: integers
    unsigned modulo their width, floats as floats."""
    if isinstance(v, FloatAttr):
        return float(v.value.data)
    bits = INDEX_BITS if isinstance(t, IndexType) else \
        t.width.data if isinstance(t, IntegerType) else 64
    return as_int(v) & ((1 << bits) - 1)


def address(view: MemRefView, indices: list[int]) -> int:
    linear = view.offset + sum(i * s for i, s in zip(indices, view.strides, strict=True))
    return view.ptr + linear * ELEM_BYTES[view.elem]


def contiguous(view: MemRefView) -> bool:
    """Row-major and dense: one byte range (what memset and memcpy need)."""
    step = 1
    for size, stride in zip(reversed(view.sizes), reversed(view.strides), strict=True):
        if size > 1 and stride != step:
            return False
        step *= size
    return True
