"""What the readers of parsed IR use of an op, a value, a block and a region:
`verify.ir.fastparse`'s objects and xDSL's (`Operation`, `SSAValue`, `Block`,
`Region`, `ModuleOp`) both meet these structurally, no adapter between.

Members are read-only properties, so that xDSL's tuples and sequence views
(`OpOperands`, `RegionBlocks`, `BlockOps`) and the fast reader's lists both fit.
Attribute values are `IRAttribute`: either reader's class (xDSL's
`Attribute`s, the fast reader's small attribute classes, `FastAttribute`),
read through `verify.ir.attrs`.  `IRBlock` declares `__hash__`: blocks are
the nodes of `verify.extract.cfg`'s graphs, and mypy does not take a
protocol for `Hashable` otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from xdsl.ir import Attribute

    from gpu_alloc_verify.verify.ir.fastparse import FastAttribute

# An attribute as either reader gives it: xDSL's, or one of the fast reader's.
IRAttribute: TypeAlias = "Attribute | FastAttribute"


class IRValue(Protocol):
    """An SSA value: an op's result or a block's argument."""

    @property
    def type(self) -> Attribute | str:
        """xDSL's type attribute, the fast reader's type text (`str()` prints either)."""
        ...


class IRBlock(Protocol):
    """A block; hashable, a node of `verify.extract.cfg`'s graphs."""

    def __hash__(self) -> int: ...

    @property
    def args(self) -> Sequence[IRValue]: ...

    @property
    def ops(self) -> Iterable[IROp]: ...


class IRRegion(Protocol):
    @property
    def blocks(self) -> Sequence[IRBlock]: ...


class IROp(Protocol):
    """An operation.  `name` is the registered name (xDSL's generic ops keep the
    real one in the `op_name__` attribute, `verify.ir.lowered_ir.op_name`);
    `location` is the fast reader's text or xDSL's location attribute."""

    @property
    def name(self) -> str: ...

    @property
    def operands(self) -> Sequence[IRValue]: ...

    @property
    def results(self) -> Sequence[IRValue]: ...

    @property
    def regions(self) -> Sequence[IRRegion]: ...

    @property
    def successors(self) -> Sequence[IRBlock]: ...

    @property
    def properties(self) -> Mapping[str, IRAttribute]:
        """Attribute objects by name (either reader's class: see the module text)."""
        ...

    @property
    def attributes(self) -> Mapping[str, IRAttribute]: ...

    @property
    def location(self) -> object: ...


class IRModule(IROp, Protocol):
    """A module op: its one region as `body`."""

    @property
    def body(self) -> IRRegion: ...


if TYPE_CHECKING:  # mypy checks that both readers' objects meet the protocols
    from xdsl.dialects import builtin as _xdsl_builtin
    from xdsl.ir import core as _xdsl

    from gpu_alloc_verify.verify.ir import fastparse as _fast

    def _fast_meets(op: _fast.Op, v: _fast.Value, b: _fast.Block, r: _fast.Region) -> None:
        _op: IROp = op
        _module: IRModule = op
        _v: IRValue = v
        _b: IRBlock = b
        _r: IRRegion = r

    def _xdsl_meets(op: _xdsl.Operation, v: _xdsl.SSAValue, b: _xdsl.Block,
                    r: _xdsl.Region, m: _xdsl_builtin.ModuleOp) -> None:
        _op: IROp = op
        _module: IRModule = m
        _v: IRValue = v
        _b: IRBlock = b
        _r: IRRegion = r
