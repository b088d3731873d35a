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

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i32,
    i64,
)
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from gpu_alloc_verify.verify.lowerings import xdsl_private
from gpu_alloc_verify.verify.lowerings.xdsl_fastir import (
    append,
    attr_key,
    cached,
    erase,
    insert_before,
    op_from,
    replace_uses,
    use_count,
    walk,
)

PTR = llvm.LLVMPointerType()
INDEX = IndexType()


def pointer_type(space: int | None) -> llvm.LLVMPointerType:
    """`!llvm.ptr`, or `!llvm.ptr<N>` in address space N."""
    if not space:
        return PTR
    return cached(("ptr", space), lambda: llvm.LLVMPointerType(IntAttr(space)))


def memory_space(t: MemRefType) -> int | None:
    """The memref's memory space as a number (None: the default one)."""
    space = t.memory_space
    if isinstance(space, IntegerAttr):
        return int(space.value.data)
    return None


def descriptor_type(rank: int, space: int | None = None) -> llvm.LLVMStructType:
    """`!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>` (the
    pointers in address space `space`)."""

    def make() -> llvm.LLVMStructType:
        arr = llvm.LLVMArrayType(IntAttr(rank), i64)
        ptr = pointer_type(space)
        return llvm.LLVMStructType.from_type_list([ptr, ptr, i64, arr, arr])

    return cached(("descriptor", rank, space), make)


def descriptor_fields(t: MemRefType) -> list[Attribute]:
    """The types a memref operand expands to in a call or kernel signature:
    allocated and aligned pointer, offset, sizes, strides."""
    rank = len(t.get_shape())
    ptr = pointer_type(memory_space(t))
    return [ptr, ptr, i64, *([i64] * (2 * rank))]


def descriptor_positions(rank: int) -> list[tuple[int, ...]]:
    """The struct positions of `descriptor_fields`, in order."""
    return [(0,), (1,), (2,), *[(3, i) for i in range(rank)], *[(4, i) for i in range(rank)]]


class ConversionFailed(Exception):
    """The conversion fails as a whole (an illegal op no pattern converts):
    the lowering rejects the program with `diagnostic`, as mlir-opt exits 1."""

    def __init__(self, diagnostic: str) -> None:
        super().__init__(diagnostic)
        self.diagnostic = diagnostic


def _convert_type(t: Attribute) -> Attribute:
    if isinstance(t, MemRefType):
        return descriptor_type(len(t.get_shape()), memory_space(t))
    if isinstance(t, AsyncTokenType):
        return PTR
    if isinstance(t, IndexType):
        return i64
    return t


_CONVERTED: dict[int, Attribute] = {}


def convert_type(t: Attribute) -> Attribute:
    """The LLVM type a source value of type `t` is lowered to."""
    key = attr_key(t)
    converted = _CONVERTED.get(key)
    if converted is None:
        converted = _CONVERTED[key] = _convert_type(t)
    return converted


def index_attr(value: int) -> IntegerAttr:
    """`value : index`."""
    return cached(("index", value), lambda: IntegerAttr(value, INDEX))


def int_attr(value: int, type_: IntegerType | IndexType) -> IntegerAttr:
    return cached(("int", value, attr_key(type_)), lambda: IntegerAttr(value, type_))


def dense_i64(values: tuple[int, ...]) -> DenseArrayBase:
    """`array<i64: values>`."""
    return cached(("dense-i64", values), lambda: DenseArrayBase.from_list(i64, list(values)))


def dense_i32(values: tuple[int, ...]) -> DenseArrayBase:
    """`array<i32: values>`."""
    return cached(("dense-i32", values), lambda: DenseArrayBase.from_list(i32, list(values)))


def cast_op(value: SSAValue, to: Attribute, location: LocationAttr
            ) -> UnrealizedConversionCastOp:
    """`builtin.unrealized_conversion_cast` of `value` to `to` (not inserted),
    its result named like `value`, as `UnrealizedConversionCastOp.cast_one`
    makes it."""
    cast: UnrealizedConversionCastOp = op_from(
        "cast", lambda: UnrealizedConversionCastOp.cast_one(value, to)[0], [value], location,
        result_types=(to,))
    hint = value.name_hint
    if hint is not None:  # already a valid name
        xdsl_private.set_name_hint(cast.results[0], hint)
    return cast


def place(op: Operation, point: InsertPoint) -> None:
    """Insert a new op at `point` (what `Rewriter.insert_op` does)."""
    if point.insert_before is not None:
        insert_before(op, point.insert_before)
    else:
        append(point.block, op)


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
        cast = cast_op(value, target, at.location)
        place(cast, _definition_point(value))
        result = cast.results[0]
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
        """Replace `op`; returns what now stands for each result (None: unused).

        (What `rewriter.replace_all_uses_with` and `rewriter.erase` do, done
        by `verify.lowerings.xdsl_fastir`: the driver has no listeners.)"""
        assert len(new_values) == len(op.results)
        standing: list[SSAValue | None] = []
        for old, new in zip(op.results, new_values, strict=True):
            standing.append(None)
            if old.first_use is None:
                continue
            assert new is not None, f"{op.name}: a used result has no replacement"
            standing[-1] = new
            if new.type == old.type:
                replace_uses(old, new)
                continue
            # Source materialization where `op` stood: later (still
            # unconverted) users see the source type; `lookup` sees through it.
            cast = cast_op(new, old.type, op.location)
            insert_before(cast, op)
            result = cast.results[0]
            self.replaced_uses[result] = use_count(old)
            replace_uses(old, result)
            standing[-1] = result
        erase(op)
        rewriter.has_done_action = True
        return standing

    # -- runtime function declarations --------------------------------------
    def declare(self, name: str, arg_types: Sequence[Attribute], result: Attribute | None,
                at: Operation) -> None:
        if name in self.declarations:
            return
        decl = llvm_func(name, arg_types, result, at.location, Region())
        append(self.module.body.block, decl)
        self.declarations[name] = decl


def llvm_func(name: str, arg_types: Sequence[Attribute], result: Attribute | None,
              location: LocationAttr, body: Region) -> llvm.FuncOp:
    """`llvm.func @name` with external linkage, as `llvm.FuncOp(...)` makes it."""
    key = ("llvm.func", name, tuple(attr_key(t) for t in arg_types),
           None if result is None else attr_key(result))

    def canonical() -> Operation:
        fty = llvm.LLVMFunctionType(list(arg_types), result)
        return llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr("external"))

    return op_from(key, canonical, [], location, [body])


class Emit:
    """Builds LLVM ops for one source op: its location, at one insert point.

    Ops are made with `verify.lowerings.xdsl_fastir.op_from`: equal to what
    the xDSL constructor in each method's `canonical` makes, built cheaply."""

    def __init__(self, state: ConversionState, rewriter: PatternRewriter, op: Operation,
                 point: InsertPoint | None = None, loc: LocationAttr | None = None) -> None:
        self.state = state
        self.rewriter = rewriter
        self.op = op
        self.point = point  # None: right before `op`
        self.loc = loc or op.location

    def at(self, point: InsertPoint) -> Emit:
        return Emit(self.state, self.rewriter, self.op, point, self.loc)

    def place(self, new_op: Operation) -> None:
        if self.point is None:
            insert_before(new_op, self.op)
        else:
            place(new_op, self.point)
        self.rewriter.has_done_action = True

    def make(self, key: object, canonical: Callable[[], Operation],
             operands: Sequence[SSAValue]) -> Any:
        """Insert an op like `canonical()` with `operands` (see `op_from`)."""
        new = op_from(key, canonical, operands, self.loc)
        self.place(new)
        return new

    def make_value(self, key: object, canonical: Callable[[], Operation],
                   operands: Sequence[SSAValue]) -> SSAValue:
        return self.make(key, canonical, operands).results[0]  # type: ignore[no-any-return]

    def const(self, value: int, type_: Attribute = i64) -> SSAValue:
        """`llvm.mlir.constant`; i64 sizes print as `N : index` like upstream."""
        def canonical() -> Operation:
            attr_type = INDEX if type_ == i64 else type_
            assert isinstance(attr_type, (IndexType, IntegerType))
            return llvm.ConstantOp(int_attr(value, attr_type), type_)

        return self.make_value(("llvm.mlir.constant", value, attr_key(type_)), canonical, [])

    def zero(self) -> SSAValue:
        return self.make_value("llvm.mlir.zero",
                               lambda: llvm.ZeroOp.build(result_types=[PTR]), [])

    # No overflowFlags property: xDSL stores it as an i32, which MLIR rejects;
    # MLIR's default when it is absent is "none".
    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.make_value(
            ("llvm.mul", attr_key(a.type), attr_key(b.type)),
            lambda: llvm.MulOp.create(operands=[a, b], result_types=[a.type]), [a, b])

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.make_value(
            ("llvm.add", attr_key(a.type), attr_key(b.type)),
            lambda: llvm.AddOp.create(operands=[a, b], result_types=[a.type]), [a, b])

    def extract(self, container: SSAValue, position: Sequence[int], type_: Attribute) -> SSAValue:
        pos = tuple(position)
        return self.make_value(
            ("llvm.extractvalue", pos, attr_key(container.type), attr_key(type_)),
            lambda: llvm.ExtractValueOp(dense_i64(pos), container, type_), [container])

    def insert(self, container: SSAValue, value: SSAValue, position: Sequence[int]) -> SSAValue:
        pos = tuple(position)
        return self.make_value(
            ("llvm.insertvalue", pos, attr_key(container.type), attr_key(value.type)),
            lambda: llvm.InsertValueOp(dense_i64(pos), container, value), [container, value])

    def call(self, callee: str, args: Sequence[SSAValue], result: Attribute | None = None
             ) -> SSAValue | None:
        """`llvm.call @callee(args)`, declaring `callee` on first use."""
        arg_types = [a.type for a in args]
        self.state.declare(callee, arg_types, result, self.op)
        key = ("llvm.call", callee, tuple(attr_key(t) for t in arg_types),
               None if result is None else attr_key(result))
        call = self.make(key, lambda: llvm.CallOp(callee, *args, return_type=result), args)
        return call.results[0] if result is not None else None  # type: ignore[no-any-return]

    def call_value(self, callee: str, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        out = self.call(callee, args, result)
        assert out is not None
        return out


def converts(
    func: Callable[[Any, Any, PatternRewriter], None],
) -> Callable[[Any, Operation, PatternRewriter], None]:
    """`op_type_rewrite_pattern` that also records the op types it matches
    (`convert` then tries a pattern only on ops of those types)."""
    impl = op_type_rewrite_pattern(func)
    hint = inspect.signature(func, eval_str=True).parameters["op"].annotation
    impl.op_types = get_args(hint) or (hint,)  # type: ignore[attr-defined]
    return impl


def _matcher(pattern: RewritePattern) -> object:
    method = pattern.match_and_rewrite
    return getattr(method, "__func__", method)


# (the patterns' match functions, op class) -> indices of those that may match it
_DISPATCH: dict[tuple[tuple[object, ...], type[Operation]], list[int]] = {}


def _candidates(matchers: tuple[object, ...], cls: type[Operation]) -> list[int]:
    found = _DISPATCH.get((matchers, cls))
    if found is None:
        found = []
        for i, matcher in enumerate(matchers):
            types = getattr(matcher, "op_types", None)  # None: any op (not `converts`)
            if types is None or issubclass(cls, types):
                found.append(i)
        _DISPATCH[(matchers, cls)] = found
    return found


def convert(module: ModuleOp, patterns: Sequence[RewritePattern]) -> None:
    """Visit every op of `module` once, in program order, trying `patterns`
    (those that can match its type, in order) until one rewrites it."""
    matchers = tuple(_matcher(p) for p in patterns)
    rewriter: PatternRewriter | None = None
    for op in walk(module)[1:]:
        if op.parent is None:  # erased (or detached) by an earlier rewrite
            continue
        candidates = _candidates(matchers, type(op))
        if not candidates:
            continue
        # One rewriter, reset on each op, as xDSL's PatternRewriteWalker does.
        if rewriter is None:
            rewriter = PatternRewriter(op)
        else:
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            rewriter.name_hint = None
        for i in candidates:
            patterns[i].match_and_rewrite(op, rewriter)  # one that declines leaves it
            if rewriter.has_done_action:
                break
    reconcile_casts(module)


def reconcile_casts(module: ModuleOp) -> None:
    """Fold `A -> B -> A` cast pairs and drop unused casts, to a fixed point
    (visiting the casts in program order; none is made or moved meanwhile)."""
    casts = [op for op in walk(module) if isinstance(op, UnrealizedConversionCastOp)]
    changed = True
    while changed:
        changed = False
        for op in casts:
            if op.parent is None:
                continue
            inputs, outputs = op.operands, op.results  # `op.inputs`, `op.outputs`
            if len(inputs) == 1 and len(outputs) == 1:
                src = inputs[0]
                inner = src.owner if isinstance(src, OpResult) else None
                if (
                    isinstance(inner, UnrealizedConversionCastOp)
                    and len(inner.operands) == 1
                    and inner.operands[0].type == outputs[0].type
                    and outputs[0].first_use is not None
                ):
                    replace_uses(outputs[0], inner.operands[0])
                    changed = True
            if all(r.first_use is None for r in outputs):
                erase(op)
                changed = True
