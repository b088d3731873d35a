"""A small dialect-conversion driver for the in-process (xDSL) lowerings.

It behaves like MLIR's partial conversion as far as the harness can see:

- ops are visited once, in program order (pre-order, entering regions), so a
  pattern sees the already-converted producers of its operands;
- a pattern reads its operands through `ConversionState.lookup`, the
  "adaptor": the LLVM value that replaced an operand, or else an
  `unrealized_conversion_cast` to the LLVM type (a target materialization,
  placed right after the operand's definition);
- `ConversionState.replace` maps an op's results to LLVM values; users that
  stay unconverted get a cast back to the source type (a source
  materialization, placed where the replaced op stood);
- at the end, cast round trips fold away and unused casts disappear, so what
  remains are exactly the casts between LLVM and memref / token / index
  values that unconverted ops still need.

Runtime calls go through `Emit.call`, which also declares the callee once as
an external `llvm.func` at the end of the module, located at its first user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

PTR = llvm.LLVMPointerType()


def descriptor_type(rank: int) -> llvm.LLVMStructType:
    """`!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`."""
    arr = llvm.LLVMArrayType(IntAttr(rank), i64)
    return llvm.LLVMStructType.from_type_list([PTR, PTR, i64, arr, arr])


def convert_type(t: Attribute) -> Attribute:
    """The LLVM type a source value of type `t` is lowered to."""
    if isinstance(t, MemRefType):
        return descriptor_type(len(t.get_shape()))
    if isinstance(t, AsyncTokenType):
        return PTR
    if isinstance(t, IndexType):
        return i64
    return t


def insert_point_after(op: Operation) -> InsertPoint:
    """A point right after `op` that keeps a sequence of inserts in order."""
    if op.next_op is not None:
        return InsertPoint.before(op.next_op)
    assert op.parent is not None
    return InsertPoint.at_end(op.parent)


def _definition_point(value: SSAValue) -> InsertPoint:
    if isinstance(value, OpResult):
        return insert_point_after(value.op)
    assert isinstance(value, BlockArgument)
    block = value.block
    if block.first_op is not None:
        return InsertPoint.before(block.first_op)
    return InsertPoint.at_end(block)


def is_call_to(value: SSAValue, callee: str) -> bool:
    """Whether `value` is the result of `llvm.call @callee`."""
    owner = value.owner if isinstance(value, OpResult) else None
    return (
        isinstance(owner, llvm.CallOp)
        and owner.callee is not None
        and owner.callee.root_reference.data == callee
    )


class PatternCrash(Exception):
    """A pattern hit what would be an assertion failure in upstream C++."""


@dataclass
class ConversionState:
    module: ModuleOp
    declarations: dict[str, llvm.FuncOp] = field(default_factory=dict)
    # original (unconverted) value -> its cast to the LLVM type
    target_casts: dict[SSAValue, SSAValue] = field(default_factory=dict)
    # source-materialization cast result -> uses the replaced value had then
    replaced_uses: dict[SSAValue, int] = field(default_factory=dict)
    # variant bookkeeping (split-api): streams a block must destroy before it
    # ends, streams destroyed so far, and the streams a token stands for when
    # that is not just the value it was replaced with (keyed by its cast)
    block_streams: dict[Block, list[SSAValue]] = field(default_factory=dict)
    destroyed: set[SSAValue] = field(default_factory=set)
    frontier: dict[SSAValue, tuple[SSAValue, ...]] = field(default_factory=dict)

    # -- the adaptor ---------------------------------------------------------
    def lookup(self, value: SSAValue, at: Operation) -> SSAValue:
        """The LLVM-typed value standing for `value` (operand of op `at`)."""
        target = convert_type(value.type)
        if target == value.type:
            return value
        owner = value.owner if isinstance(value, OpResult) else None
        if (
            isinstance(owner, UnrealizedConversionCastOp)
            and len(owner.inputs) == 1
            and owner.inputs[0].type == target
        ):
            return owner.inputs[0]
        cached = self.target_casts.get(value)
        if cached is not None:
            return cached
        cast, result = UnrealizedConversionCastOp.cast_one(value, target)
        cast.location = at.location
        Rewriter.insert_op(cast, _definition_point(value))
        self.target_casts[value] = result
        return result

    def lookup_all(self, values: Sequence[SSAValue], at: Operation) -> list[SSAValue]:
        return [self.lookup(v, at) for v in values]

    def replaced_use_count(self, value: SSAValue) -> int | None:
        """How many uses the source value that `value` (a cast) replaced had."""
        return self.replaced_uses.get(value)

    # -- replacing ops -------------------------------------------------------
    def replace(
        self,
        op: Operation,
        new_values: Sequence[SSAValue | None],
        rewriter: PatternRewriter,
    ) -> list[SSAValue | None]:
        """Replace `op`; returns what now stands for each result (None: unused)."""
        assert len(new_values) == len(op.results)
        standing: list[SSAValue | None] = []
        for old, new in zip(op.results, new_values, strict=True):
            standing.append(None)
            if not old.uses:
                continue
            assert new is not None, f"{op.name}: a used result has no replacement"
            standing[-1] = new
            if new.type == old.type:
                rewriter.replace_all_uses_with(old, new)
                continue
            # Source materialization where `op` stood: later (still
            # unconverted) users see the source type; `lookup` sees through it.
            cast, result = UnrealizedConversionCastOp.cast_one(new, old.type)
            cast.location = op.location
            rewriter.insert(cast, InsertPoint.before(op))
            self.replaced_uses[result] = old.uses.get_length()
            rewriter.replace_all_uses_with(old, result)
            standing[-1] = result
        rewriter.erase(op)
        return standing

    # -- runtime function declarations --------------------------------------
    def declare(self, name: str, arg_types: Sequence[Attribute], result: Attribute | None,
                at: Operation) -> None:
        if name in self.declarations:
            return
        fty = llvm.LLVMFunctionType(list(arg_types), result)
        decl = llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr("external"))
        decl.location = at.location
        self.module.body.block.add_op(decl)
        self.declarations[name] = decl


class Emit:
    """Builds LLVM ops for one source op: its location, at one insert point."""

    def __init__(self, state: ConversionState, rewriter: PatternRewriter, op: Operation,
                 point: InsertPoint | None = None, loc: Attribute | None = None) -> None:
        self.state = state
        self.rewriter = rewriter
        self.op = op
        self.point = point or InsertPoint.before(op)
        self.loc = loc or op.location

    def at(self, point: InsertPoint) -> Emit:
        return Emit(self.state, self.rewriter, self.op, point, self.loc)

    def __call__(self, new_op: Operation) -> Operation:
        new_op.location = self.loc  # type: ignore[assignment]
        self.rewriter.insert(new_op, self.point)
        return new_op

    def value(self, new_op: Operation) -> SSAValue:
        return self(new_op).results[0]

    def const(self, value: int, type_: Attribute = i64) -> SSAValue:
        """`llvm.mlir.constant`; i64 sizes print as `N : index` like upstream."""
        attr_type = IndexType() if type_ == i64 else type_
        assert isinstance(attr_type, (IndexType, IntegerType))
        return self.value(llvm.ConstantOp(IntegerAttr(value, attr_type), type_))

    def zero(self) -> SSAValue:
        return self.value(llvm.ZeroOp.build(result_types=[PTR]))

    # No overflowFlags property: xDSL stores it as an i32, which MLIR rejects;
    # MLIR's default when it is absent is "none".
    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(llvm.MulOp.create(operands=[a, b], result_types=[a.type]))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(llvm.AddOp.create(operands=[a, b], result_types=[a.type]))

    def extract(self, container: SSAValue, position: Sequence[int], type_: Attribute) -> SSAValue:
        pos = DenseArrayBase.from_list(i64, list(position))
        return self.value(llvm.ExtractValueOp(pos, container, type_))

    def insert(self, container: SSAValue, value: SSAValue, position: Sequence[int]) -> SSAValue:
        pos = DenseArrayBase.from_list(i64, list(position))
        return self.value(llvm.InsertValueOp(pos, container, value))

    def call(self, callee: str, args: Sequence[SSAValue], result: Attribute | None = None
             ) -> SSAValue | None:
        """`llvm.call @callee(args)`, declaring `callee` on first use."""
        self.state.declare(callee, [a.type for a in args], result, self.op)
        call = self(llvm.CallOp(callee, *args, return_type=result))
        return call.results[0] if result is not None else None

    def call_value(self, callee: str, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        out = self.call(callee, args, result)
        assert out is not None
        return out


def convert(module: ModuleOp, patterns: Sequence[RewritePattern]) -> None:
    """Visit every op of `module` once, in program order, trying `patterns`."""
    for op in list(module.walk())[1:]:
        if op.parent is None:  # erased (or detached) by an earlier rewrite
            continue
        rewriter = PatternRewriter(op)  # a pattern that declines leaves it untouched
        for pattern in patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                break
    reconcile_casts(module)


def reconcile_casts(module: ModuleOp) -> None:
    """Fold `A -> B -> A` cast pairs and drop unused casts, to a fixed point."""
    changed = True
    while changed:
        changed = False
        for op in list(module.walk()):
            if not isinstance(op, UnrealizedConversionCastOp) or op.parent is None:
                continue
            if len(op.inputs) == 1 and len(op.outputs) == 1:
                src = op.inputs[0]
                inner = src.owner if isinstance(src, OpResult) else None
                if (
                    isinstance(inner, UnrealizedConversionCastOp)
                    and len(inner.inputs) == 1
                    and inner.inputs[0].type == op.outputs[0].type
                    and op.outputs[0].uses
                ):
                    op.outputs[0].replace_all_uses_with(inner.inputs[0])
                    changed = True
            if all(not r.uses for r in op.results):
                Rewriter.erase_op(op)
                changed = True
