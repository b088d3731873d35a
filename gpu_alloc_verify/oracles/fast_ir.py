"""What `llvm_values` needs from `verify.ir.fastparse`'s IR model.

The fast reader keeps types as their printed text and attributes as a few
small objects (`IntegerAttr`, `DenseArrayAttr`, `OpaqueAttr` text, ...).
Here are the layouts of those type texts and the values of those
attributes, each equal to what `llvm_values` computes from xDSL's objects
(a location's text is read by `verify.ir.locations`, for both models).
Whatever is not modelled raises `fastparse.Unsupported`; the differential
oracle then reruns on xDSL's parse, so a gap here costs time, never a
different verdict.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.ir import locations

# A constant's value (and the scalar layouts it reads with) sits with the
# reader, which the source model reader asks too; kept here for this
# module's users.
from gpu_alloc_verify.verify.ir.fast_constants import FLOAT_FMT as FLOAT_FMT
from gpu_alloc_verify.verify.ir.fast_constants import SCALAR_BYTES as SCALAR_BYTES
from gpu_alloc_verify.verify.ir.fast_constants import constant as constant

# `FastAttribute` (the fast reader's attribute objects) and `IRAttribute`
# (either reader's) are verify.ir's, imported here for this module's users.
from gpu_alloc_verify.verify.ir.fastparse import (
    DenseArrayAttr,
    FastAttribute,
    OpaqueAttr,
    split_top,
)
from gpu_alloc_verify.verify.ir.fastparse import Unsupported as FastUnsupported
from gpu_alloc_verify.verify.ir.protocols import IRAttribute
from gpu_alloc_verify.verify.ir.types import llvm_array, memref_text

if TYPE_CHECKING:
    from typing_extensions import TypeIs
    from xdsl.ir import Attribute




def _body(t: str) -> str:
    """The type without its `!llvm.` prefix (nested LLVM types are printed without)."""
    t = t.strip()
    return t[6:] if t.startswith("!llvm.") else t


def _struct_fields(body: str) -> list[str] | None:
    """The field types of `struct<(...)>` (identified or packed ones: not modelled)."""
    if body.startswith("struct<(") and body.endswith(")>"):
        return [f for f in split_top(body[8:-2]) if f]
    return None


@lru_cache(maxsize=4096)
def layout(t: str) -> tuple[int, int]:
    """(size, alignment) of a printed type, as `llvm_values.layout` on xDSL's."""
    body = _body(t)
    if body == "ptr" or body.startswith("ptr<"):
        return 8, 8
    if body in SCALAR_BYTES:
        n = SCALAR_BYTES[body]
        return n, n
    array = llvm_array(body)
    if array is not None:
        size, align = layout(array[1])
        return size * array[0], align
    fields = _struct_fields(body)
    if fields is not None:
        off, max_align = 0, 1
        for ft in fields:
            size, align = layout(ft)
            off = -(-off // align) * align + size
            max_align = max(max_align, align)
        return -(-off // max_align) * max_align, max_align
    raise FastUnsupported(f"layout of {t}")


@lru_cache(maxsize=4096)
def field_offset(t: str, index: int) -> tuple[int, str] | None:
    """(byte offset, type) of field or element `index` of a struct or array;
    None for an index past a struct's last field."""
    body = _body(t)
    fields = _struct_fields(body)
    if fields is not None:
        off = 0
        for i, ft in enumerate(fields):
            size, align = layout(ft)
            off = -(-off // align) * align
            if i == index:
                return off, ft
            off += size
        return None
    array = llvm_array(body)
    if array is None:
        raise FastUnsupported(f"indexing into {t}")
    return index * layout(array[1])[0], array[1]


def members(t: str) -> list[str] | None:
    """The field types of a struct type, the element types of an array
    type (one per element); None for any other type."""
    body = _body(t)
    fields = _struct_fields(body)
    if fields is not None:
        return fields
    array = llvm_array(body)
    return [array[1]] * array[0] if array is not None else None


def memref_element(t: str) -> str:
    """The element type of `memref<4x?xf32, ...>`."""
    parsed = memref_text(t)
    if parsed is None:
        raise FastUnsupported(f"memref access on {t}")
    elem = parsed.elem
    if elem not in SCALAR_BYTES:
        raise FastUnsupported(f"memref element type in {t}")
    return elem


def is_fast(attr: IRAttribute | None) -> TypeIs[FastAttribute]:
    """Whether `attr` is one of the fast reader's attribute objects."""
    return type(attr).__module__ == "gpu_alloc_verify.verify.ir.fastparse"


def type_of(attr: IRAttribute | None) -> Attribute | str | None:
    """A type-valued attribute (`elem_type`): its text; None and xDSL types as they are."""
    if isinstance(attr, OpaqueAttr):
        return attr.text
    if not is_fast(attr):
        return attr
    raise FastUnsupported(f"type attribute {attr}")


def int_list(attr: FastAttribute) -> tuple[int, ...]:
    """The integers of a dense array attribute."""
    if isinstance(attr, DenseArrayAttr):
        return attr.values
    raise FastUnsupported(f"integer list {attr}")


# The source op key of a location text (kept for callers of the old name).
loc_name = locations.source_key
