"""The one module that writes xDSL's private IR fields.

`verify.lowerings.xdsl_fastir` builds and rewrites IR without the cost of
xDSL's methods (tens of microseconds an op); what it does through fields
xDSL does not publish is here, and only here.  It relies on the IR layout of
xdsl 0.75 (`xdsl.__version__` 0.75.0; pyproject.toml pins `>=0.75,<0.76`):

- `Operation` is a dataclass with exactly the fields `OP_FIELDS`, and
  `Operation.create` fills them as `new_op` does: the operands in
  `_operands`, a `Use(op, i)` each in `_operand_uses`, results, properties,
  attributes and location as given, no successors, not in a block, regions
  added with `add_region`, and nothing else on the object;
- a value's uses are a doubly linked list from `SSAValue.first_use` through
  `Use._next_use` / `Use._prev_use`, a new use going at its head (as
  `SSAValue.add_use` puts it); `Use._operation` / `Use._index` say where;
- a `Block` links its ops from `_first_op` to `_last_op` through each op's
  `_prev_op` / `_next_op`, the op's `parent` being the block;
- `SSAValue.name_hint` is stored, as validated, in `_name`.

`RAW_OPS`, `RAW_LINKS` and `RAW_NAMES` say whether the installed xDSL has
that layout (from its dataclass fields; `layout_problems` says how it
differs); the functions here are only to be called when their flag is true
(`xdsl_fastir` calls xDSL's methods otherwise: slower, the same IR).
`tests/test_dependency_pins.py` checks each point above against the
installed xDSL, so that an upgrade that changes one fails there, by name.
(`xdsl_print` and `xdsl_convert` also read `_name`, `_operands` and
`_successors`, and write `_name`, when those flags are true.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import LocationAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue, SSAValues, Use

__all__ = [
    "OP_FIELDS", "RAW_LINKS", "RAW_NAMES", "RAW_OPS", "append", "erase", "insert_before",
    "has_successors", "layout_problems", "name_hint", "new_op", "operand_values",
    "replace_uses", "set_name_hint", "use_count",
]

OP_FIELDS = frozenset({
    "_operands", "_operand_uses", "results", "_successors", "_successor_uses",
    "properties", "attributes", "location", "regions", "parent", "_next_op", "_prev_op",
})
_USE_FIELDS = frozenset({"_operation", "_index", "_prev_use", "_next_use"})
_BLOCK_FIELDS = frozenset({"_first_op", "_last_op", "parent"})


def _fields(cls: type) -> set[str]:
    try:
        return {f.name for f in dataclasses.fields(cls)}
    except TypeError:
        return set()


# Whether xDSL's internal layout is the one written here.
RAW_OPS = (
    _fields(Operation) == OP_FIELDS
    and _USE_FIELDS <= _fields(Use)
    and "first_use" in _fields(SSAValue)
)
RAW_LINKS = _BLOCK_FIELDS <= _fields(Block)
RAW_NAMES = "_name" in _fields(SSAValue)


def layout_problems() -> list[str]:
    """How the installed xDSL's fields differ from the layout written here
    (empty: they do not)."""
    problems = []
    have = _fields(Operation)
    if have != OP_FIELDS:
        problems.append(f"Operation's fields: new {sorted(have - OP_FIELDS)}, "
                        f"gone {sorted(OP_FIELDS - have)}")
    for cls, want in ((Use, _USE_FIELDS), (SSAValue, {"first_use", "_name"}),
                      (Block, _BLOCK_FIELDS)):
        gone = want - _fields(cls)
        if gone:
            problems.append(f"{cls.__name__} has no field {', '.join(sorted(gone))}")
    return problems


_new = object.__new__
_NO_VALUES: SSAValues[Any] = SSAValues()  # immutable: shared by ops without operands/results


def new_op(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    location: LocationAttr,
    attributes: dict[str, Attribute] | None,
    regions: Sequence[Region],
) -> Any:
    """`cls.create(...)` (takes ownership of the two dicts); needs `RAW_OPS`."""
    op = _new(cls)
    if operands:
        op._operands = SSAValues(operands)
        uses = []
        for i, value in enumerate(operands):
            use = Use(op, i)
            first = value.first_use
            use._next_use = first
            if first is not None:
                first._prev_use = use
            value.first_use = use
            uses.append(use)
        op._operand_uses = tuple(uses)
    else:
        op._operands = _NO_VALUES
        op._operand_uses = ()
    if result_types:
        op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    else:
        op.results = _NO_VALUES
    op._successors = ()
    op._successor_uses = ()
    op.properties = properties
    op.attributes = {} if attributes is None else attributes
    op.location = location
    op.parent = None
    op._next_op = None
    op._prev_op = None
    op.regions = ()
    for region in regions:
        op.add_region(region)
    return op


def use_count(value: SSAValue) -> int:
    """`value.uses.get_length()`; needs `RAW_OPS`."""
    n = 0
    use = value.first_use
    while use is not None:
        n += 1
        use = use._next_use
    return n


def replace_uses(old: SSAValue, new: SSAValue) -> bool:
    """`old.replace_all_uses_with(new)` for `new` not `old`; whether `old`
    had uses; needs `RAW_OPS`."""
    use = old.first_use
    if use is None:
        if new.name_hint is None:
            new.name_hint = old.name_hint
        return False
    while use is not None:
        after = use._next_use
        user = use._operation
        index = use._index
        operands = tuple.__getitem__(user._operands, slice(None))
        user._operands = SSAValues((*operands[:index], new, *operands[index + 1:]))
        first = new.first_use  # as `new.add_use(use)`: at the head
        use._prev_use = None
        use._next_use = first
        if first is not None:
            first._prev_use = use
        new.first_use = use
        use = after
    old.first_use = None
    if new.name_hint is None:
        new.name_hint = old.name_hint
    return True


def erase(op: Operation) -> bool:
    """`Rewriter.erase_op(op)` if `op` has no regions and no successors
    (else False, `op` untouched); needs `RAW_OPS` and `RAW_LINKS`."""
    if op.regions or op._successors:
        return False
    for result in op.results:
        if result.first_use is not None:
            raise ValueError("Attempting to delete SSA value that still has uses of result "
                             f"of operation:\n{op}")
    block = op.parent
    if block is not None:
        _connect(block, op._prev_op, op._next_op)
        op._prev_op = op._next_op = None
    op.parent = None
    for value, use in zip(op._operands, op._operand_uses, strict=True):
        value.remove_use(use)
    op._operand_uses = ()
    return True


def _connect(block: Block, left: Operation | None, right: Operation | None) -> None:
    """Make `right` follow `left` in `block` (None: the block's start or end)."""
    if left is None:
        block._first_op = right
    else:
        left._next_op = right
    if right is None:
        block._last_op = left
    else:
        right._prev_op = left


def _link(block: Block, op: Operation, prev: Operation | None,
          after: Operation | None) -> None:
    """Put the detached `op` between `prev` and `after` (None: a block end)."""
    op.parent = block
    op._prev_op = prev
    op._next_op = after
    _connect(block, prev, op)
    _connect(block, op, after)


def insert_before(block: Block, op: Operation, anchor: Operation) -> None:
    """`block.insert_op_before(op, anchor)` for a new, detached `op` and
    `anchor` in `block`; needs `RAW_LINKS`."""
    _link(block, op, anchor._prev_op, anchor)


def append(block: Block, op: Operation) -> None:
    """`block.add_op(op)` for a new, detached `op`; needs `RAW_LINKS`."""
    _link(block, op, block._last_op, None)


# -- reads and writes the printer and the converter make ------------------------
def name_hint(value: SSAValue) -> str | None:
    """A value's name hint, without the property's validation."""
    return value._name if RAW_NAMES else value.name_hint  # type: ignore[attr-defined]


def set_name_hint(value: SSAValue, hint: str) -> None:
    """Set an already valid name hint, without the property's validation."""
    if RAW_NAMES:
        value._name = hint  # type: ignore[attr-defined]
    else:
        value.name_hint = hint


def operand_values(op: Operation) -> Sequence[SSAValue]:
    """An op's operands, without building the view object."""
    return op._operands if RAW_OPS else op.operands  # type: ignore[attr-defined]


def has_successors(op: Operation) -> bool:
    return bool(op._successors if RAW_OPS else op.successors)  # type: ignore[attr-defined]
