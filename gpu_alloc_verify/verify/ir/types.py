"""Types by their printed form: the one reader of a memref type's text."""

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
