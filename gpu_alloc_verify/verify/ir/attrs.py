"""Facts of one op as parsed IR gives them, for xDSL's ops and
`verify.ir.fastparse`'s alike: attributes by name, integers, callees, types,
and the source position an op came from (its location)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.ir import locations
from gpu_alloc_verify.verify.ir.protocols import IRAttribute, IROp, IRValue


def source_loc(op: object) -> str | None:
    """The key of the source op `op` came from (`verify.ir.locations.source_key`):
    its name location (`opN`), or `file:line:col` for a file location; None
    without either."""
    return locations.source_key(getattr(op, "location", None))


def where(op: object) -> str:
    """The op's location for a reason text: `file:line:col`, else its key, else "?"."""
    return locations.where(getattr(op, "location", None))


def attr_of(op: IROp, name: str) -> IRAttribute | None:
    props = getattr(op, "properties", {}) or {}
    if name in props:
        return props[name]
    return (getattr(op, "attributes", {}) or {}).get(name)


def int_value(attr: IRAttribute | None) -> int | None:
    value = getattr(attr, "value", None)
    data = getattr(value, "data", None)
    if isinstance(data, bool):
        return int(data)
    if isinstance(data, int):
        return data
    return None


def int_tuple(attr: IRAttribute | None) -> tuple[int, ...] | None:
    for getter in ("as_tuple", "get_values"):
        fn = getattr(attr, getter, None)
        if fn is not None:
            try:
                return tuple(int(v) for v in fn())
            except (TypeError, ValueError):
                return None
    return None


def callee_name(op: IROp) -> str | None:
    attr = attr_of(op, "callee")
    if attr is None:
        return None
    root = getattr(attr, "root_reference", None)
    if root is not None:
        return str(root.data)
    text = str(attr)
    return text.lstrip("@") if text else None


def type_text(value: IRValue) -> str:
    return str(getattr(value, "type", ""))


def pointer_like(value: IRValue) -> bool:
    """Could a value of this type hold a handle?  Pointers, structs of them,
    tokens and types the reader did not give."""
    t = type_text(value)
    return not t or "ptr" in t or "token" in t or "struct" in t or t.startswith("!")


def func_name(op: IROp) -> str:
    name = attr_of(op, "sym_name")
    return str(getattr(name, "data", name))


def has_body(op: IROp) -> bool:
    return bool(op.regions) and bool(op.regions[0].blocks)


@dataclass(frozen=True)
class LaunchOperands:
    """`gpu.launch_func`'s operands by role."""

    deps: list[Any]
    sizes: list[Any | None]  # grid x/y/z, then block x/y/z; None where absent
    operands: list[Any]  # the kernel's
    has_object: bool  # the op has an async-object segment (LLVM 17 on)
    stream: Any | None  # the async object, when given


def launch_operands(op: IROp) -> LaunchOperands | None:
    """By the operand segments: async dependencies, grid x/y/z, block x/y/z,
    cluster x/y/z (LLVM 18 on), dynamic shared memory, kernel operands, and
    the async object (LLVM 17 on): 9, 10 or 13 segments; None otherwise."""
    seg = int_tuple(attr_of(op, "operandSegmentSizes") or attr_of(op, "operand_segment_sizes"))
    if not seg or sum(seg) != len(op.operands) or len(seg) not in (9, 10, 13):
        return None
    parts, at = [], 0
    for n in seg:
        parts.append(list(op.operands[at : at + n]))
        at += n
    has_object = len(seg) != 9
    return LaunchOperands(parts[0], [p[0] if p else None for p in parts[1:7]],
                          parts[-2] if has_object else parts[-1], has_object,
                          parts[-1][0] if has_object and parts[-1] else None)
