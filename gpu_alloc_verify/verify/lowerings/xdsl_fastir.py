"""Cheap construction and rewriting of xDSL IR for the in-process lowerings.

xDSL's op constructors (`IRDLOperation.__init__`) and attribute constructors
(which verify their parameters) cost tens of microseconds each, and a
lowering makes dozens of ops per program.  Here, each helper does what the
xDSL method it names does, with less overhead:

- `op_from(key, canonical, operands, ...)` makes an op equal to what
  `canonical()` (the op's ordinary xDSL constructor) returns, apart from its
  operands, location, regions and, if given, result types: the class,
  properties, attributes and result types of `canonical()` are taken the
  first time `key` is seen (so `key` must determine them) and reused;
- `new_op` fills in an `Operation` as `Operation.create` does;
- `insert_before` / `append` link a new op into a block as
  `Block.insert_op_before` / `Block.add_op` do, without their ancestry check
  (a new op cannot contain the block);
- `replace_uses`, `use_count`, `erase`: `SSAValue.replace_all_uses_with`,
  `uses.get_length()`, `Rewriter.erase_op`;
- `walk`: `list(op.walk())`;
- `cached` keeps attributes (immutable) by a cheap key, so each is built and
  verified once per process; `attr_key` numbers attribute values for keys.

The fast paths go through xDSL's private fields, all of it in
`verify.lowerings.xdsl_private`, which says what it relies on (the IR
layout of xdsl 0.75); with another layout (`RAW_*` false) the helpers here
call the xDSL methods instead.  The caches only grow with the variety of
types, constants and function names the programs use.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from xdsl.dialects.builtin import LocationAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from gpu_alloc_verify.verify.lowerings import xdsl_private as raw
from gpu_alloc_verify.verify.lowerings.xdsl_private import RAW_LINKS, RAW_NAMES, RAW_OPS

__all__ = [
    "RAW_LINKS", "RAW_NAMES", "RAW_OPS", "append", "attr_key", "cached", "erase",
    "insert_before", "new_op", "op_from", "replace_uses", "use_count", "walk",
]

A = TypeVar("A", bound=Attribute)


def new_op(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    location: LocationAttr,
    attributes: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
) -> Any:
    """`cls.create(...)` (takes ownership of the two dicts)."""
    if not RAW_OPS:
        return cls.create(operands=operands, result_types=result_types,
                          properties=properties, attributes=attributes or {},
                          location=location, regions=regions)  # type: ignore[arg-type]
    return raw.new_op(cls, operands, result_types, properties, location, attributes, regions)


def use_count(value: SSAValue) -> int:
    """`value.uses.get_length()`."""
    if not RAW_OPS:
        return value.uses.get_length()
    return raw.use_count(value)


def replace_uses(old: SSAValue, new: SSAValue) -> bool:
    """`old.replace_all_uses_with(new)` (the same use lists, in the same
    order, and `new` named like `old` if it has no name); whether `old` had
    uses."""
    if not RAW_OPS or old is new:
        had = old.first_use is not None
        old.replace_all_uses_with(new)
        return had
    return raw.replace_uses(old, new)


def erase(op: Operation) -> None:
    """`Rewriter.erase_op(op)` for an op without regions or used results."""
    if not (RAW_OPS and RAW_LINKS and raw.erase(op)):
        Rewriter.erase_op(op)


def insert_before(op: Operation, anchor: Operation) -> None:
    """`anchor.parent.insert_op_before(op, anchor)` for a new, detached `op`."""
    block = anchor.parent
    assert block is not None and op.parent is None
    if not RAW_LINKS:
        block.insert_op_before(op, anchor)
        return
    raw.insert_before(block, op, anchor)


def append(block: Block, op: Operation) -> None:
    """`block.add_op(op)` for a new, detached `op`."""
    assert op.parent is None
    if not RAW_LINKS:
        block.add_op(op)
        return
    raw.append(block, op)


_ATTRS: dict[Hashable, Any] = {}


def cached(key: Hashable, make: Callable[[], A]) -> A:
    """The attribute `make()` returns, made once per `key`."""
    attr = _ATTRS.get(key)
    if attr is None:
        attr = _ATTRS[key] = make()
    return attr  # type: ignore[no-any-return]


_KEY_BY_ID: dict[int, tuple[Attribute, int]] = {}
_KEY_BY_VALUE: dict[Attribute, int] = {}


def attr_key(attr: Attribute) -> int:
    """A small int per distinct attribute value, cheap for objects seen
    before (hashing a nested type each time is not)."""
    hit = _KEY_BY_ID.get(id(attr))
    if hit is not None and hit[0] is attr:
        return hit[1]
    key = _KEY_BY_VALUE.get(attr)
    if key is None:
        key = _KEY_BY_VALUE[attr] = len(_KEY_BY_VALUE)
    if len(_KEY_BY_ID) >= 100_000:
        _KEY_BY_ID.clear()
    _KEY_BY_ID[id(attr)] = (attr, key)  # keeps `attr` alive: its id stays its own
    return key


_Proto = tuple[type[Operation], dict[str, Attribute], dict[str, Attribute],
               tuple[Attribute, ...], LocationAttr]
_PROTOS: dict[Hashable, _Proto] = {}


def op_from(
    key: Hashable,
    canonical: Callable[[], Operation],
    operands: Sequence[SSAValue],
    location: LocationAttr | None = None,
    regions: Sequence[Region] = (),
    result_types: Sequence[Attribute] | None = None,
) -> Any:
    """An op like `canonical()` but with `regions` (as many as `canonical()`
    has, which it must make empty) and, if given, `location` and
    `result_types`; `key` determines everything else (class, properties,
    attributes, and result types unless given), and `canonical`, which must
    take `operands`, in this order, is called only the first time a key is
    seen."""
    proto = _PROTOS.get(key)
    if proto is None:
        op = canonical()
        if list(op.operands) != list(operands) or op.successors \
                or len(op.regions) != len(regions) \
                or any(r.first_block is not None for r in op.regions) \
                or (result_types is not None and op.result_types != tuple(result_types)):
            raise ValueError(f"op_from: {op.name} is not its canonical form with new operands")
        proto = (type(op), dict(op.properties), dict(op.attributes),
                 tuple(r.type for r in op.results), op.location)
        op.drop_all_references()
        _PROTOS[key] = proto
    cls, properties, attributes, types, default_location = proto
    return new_op(cls, operands, types if result_types is None else result_types,
                  dict(properties), default_location if location is None else location,
                  dict(attributes) if attributes else None, regions)


def walk(op: Operation) -> list[Operation]:
    """`list(op.walk())`: `op` and the ops nested in it, in program order."""
    out: list[Operation] = []
    _walk_into(op, out)
    return out


def _walk_into(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in op.regions:
        block = region.first_block
        while block is not None:
            inner = block.first_op
            while inner is not None:
                if inner.regions:
                    _walk_into(inner, out)
                else:
                    out.append(inner)
                inner = inner.next_op
            block = block.next_block
