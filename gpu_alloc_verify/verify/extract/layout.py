"""Sizes and field offsets of LLVM types (the default data layout of a
64-bit target), for stores and loads through pointers into a stack slot:
enough to tell whether two accesses are the same bytes, disjoint, or
overlap.  A type it cannot size (a named struct, a vector) is None, and an
access through it makes what it touches unknown."""

from __future__ import annotations

from functools import cache

from gpu_alloc_verify.verify.ir.fastparse import split_list
from gpu_alloc_verify.verify.ir.types import llvm_array, llvm_struct

_FLOATS = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f128": 16}


def _strip(text: str) -> str:
    text = text.strip()
    return text[len("!llvm."):] if text.startswith("!llvm.") else text


@cache
def size_align(text: str) -> tuple[int, int] | None:
    """(size in bytes, alignment) of a type, None when not known."""
    t = _strip(text)
    if t == "index":
        return 8, 8
    if t[:1] == "i" and t[1:].isdigit():
        n = max(1, (int(t[1:]) + 7) // 8)
        size = 1 << (n - 1).bit_length()
        return size, min(size, 16)
    if t in _FLOATS:
        return _FLOATS[t], _FLOATS[t]
    if t == "ptr" or t.startswith("ptr<"):
        return 8, 8
    array = llvm_array(t)
    if array:
        inner = size_align(array[1])
        return None if inner is None else (array[0] * inner[0], inner[1])
    fields = struct_offsets(t)
    if fields is None:
        return None
    return fields[-1], fields[-2] if len(fields) > 1 else 1


@cache
def struct_offsets(text: str) -> tuple[int, ...] | None:
    """Offsets of a literal struct's fields, then its alignment and size."""
    struct = llvm_struct(_strip(text))
    if struct is None:
        return None
    packed, members = struct
    offsets: list[int] = []
    end, align = 0, 1
    for field in split_list(members):
        sa = size_align(field)
        if sa is None:
            return None
        a = 1 if packed else sa[1]
        end = (end + a - 1) // a * a
        offsets.append(end)
        end += sa[0]
        align = max(align, a)
    size = (end + align - 1) // align * align
    return (*offsets, align, size)


def gep_offset(elem: str, indices: list[int | None]) -> int | None:
    """Byte offset of `getelementptr elem[indices]` (None where an index is
    not a constant or a type not sized)."""
    if any(i is None for i in indices):
        return None
    first = size_align(elem)
    if first is None or not indices:
        return None if first is None else 0
    offset = indices[0] * first[0]  # type: ignore[operator]
    t = _strip(elem)
    for i in indices[1:]:
        array = llvm_array(t)
        if array:
            inner = size_align(array[1])
            if inner is None:
                return None
            offset += i * inner[0]  # type: ignore[operator]
            t = _strip(array[1])
            continue
        s = llvm_struct(t)
        fields = struct_offsets(t)
        if s is None or fields is None or not 0 <= i < len(fields) - 2:  # type: ignore[operator]
            return None
        offset += fields[i]  # type: ignore[index]
        t = _strip(split_list(s[1])[i])  # type: ignore[index]
    return offset
