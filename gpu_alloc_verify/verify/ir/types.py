"""Types by their printed form: the one reader of a memref type's text, and
of the LLVM dialect's array and literal struct types."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_alloc_verify.verify.ir.fastparse import split_top

_DIMS = re.compile(r"((?:(?:\d+|\?)x)*)([a-z][a-z0-9]*)$")


@dataclass(frozen=True)
class MemRefText:
    """`memref<4x?xf32, 1>`: dims (None where dynamic), element type, and
    what follows the shape (layout, memory space) as text."""

    dims: tuple[int | None, ...]
    elem: str
    rest: tuple[str, ...] = ()


def memref_text(text: str) -> MemRefText | None:
    """The parts of a printed memref type; None for any other type."""
    t = text.replace(" ", "")
    if not (t.startswith("memref<") and t.endswith(">")):
        return None
    shape, *rest = split_top(t[7:-1])
    m = _DIMS.match(shape)
    if m is None:
        return None
    dims = tuple(None if d == "?" else int(d) for d in m.group(1).split("x") if d)
    return MemRefText(dims, m.group(2), tuple(rest))


_MMA_MATRIX = re.compile(r"mma_matrix<(\d+)x(\d+)x(\w+)")


def mma_matrix(text: str) -> tuple[int, int, str] | None:
    """(rows, cols, element type) of `!gpu.mma_matrix<16x16xf16, "AOp">`, else None."""
    m = _MMA_MATRIX.search(text)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


_LLVM_ARRAY = re.compile(r"array<\s*(\d+)\s*x\s*(.+)>")
_LLVM_STRUCT = re.compile(r"struct<\s*(packed\s*)?\((.*)\)\s*>")


def llvm_array(text: str) -> tuple[int, str] | None:
    """(count, element type) of `array<4 x i32>` (the `!llvm.` dropped), else None."""
    m = _LLVM_ARRAY.fullmatch(text)
    return (int(m.group(1)), m.group(2)) if m else None


def llvm_struct(text: str) -> tuple[bool, str] | None:
    """(packed, the field list as written) of a literal `struct<(...)>` or
    `struct<packed (...)>` (the `!llvm.` dropped), else None."""
    m = _LLVM_STRUCT.fullmatch(text)
    return (bool(m.group(1)), m.group(2)) if m else None
