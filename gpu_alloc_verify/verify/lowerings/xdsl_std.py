"""Non-gpu parts of `gpu-to-llvm` for the in-process lowerings.

`func.func` / `func.return` become `llvm.func` / `llvm.return` (index
arguments become i64, a memref argument its descriptor's fields, rebuilt
into a descriptor at entry), `arith.constant` becomes `llvm.mlir.constant`,
host `memref.load` / `memref.store` read and write through the memref
descriptor, `memref.alloc` / `memref.dealloc` call `malloc` / `free`, and
`memref.dim` reads the descriptor, as upstream's func, arith and
memref-to-LLVM patterns do.  `scf` ops stay where they are (their index
operands get casts back to index).  Also here: the memref-descriptor
arithmetic the gpu patterns share.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    LocationAttr,
    MemRefType,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from gpu_alloc_verify.verify.lowerings.xdsl_convert import (
    PTR,
    ConversionState,
    Emit,
    cast_op,
    convert_type,
    converts,
    descriptor_fields,
    descriptor_positions,
    index_attr,
    llvm_func,
)
from gpu_alloc_verify.verify.lowerings.xdsl_fastir import attr_key, op_from
from gpu_alloc_verify.verify.lowerings.xdsl_gpu_ops import AddrSpaceCastOp


class _StatePattern(RewritePattern):
    def __init__(self, state: ConversionState) -> None:
        self.state = state


# -- memref descriptor helpers ------------------------------------------------


def static_shape(t: MemRefType) -> list[int | None]:
    return [None if d < 0 else d for d in t.get_shape()]


def alloc_sizes(
    emit: Emit, t: MemRefType, dynamic: Sequence[SSAValue]
) -> tuple[list[SSAValue], list[SSAValue], SSAValue]:
    """Sizes, strides (identity layout) and byte size of a new `t` buffer.

    Strides run from the innermost dimension out: while the product so far is
    1 the next one is just that dimension's size value; once a dimension is
    dynamic they are multiplied at run time; otherwise a folded constant.
    """
    shape = static_shape(t)
    dyn = iter(dynamic)
    sizes = [next(dyn) if d is None else emit.const(d) for d in shape]
    strides: list[SSAValue] = [sizes[0]] * len(shape)
    running = emit.const(1)
    product: int | None = 1  # None once a dynamic dimension was seen
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = running
        size_is_stride = product == 1
        dim = shape[i]
        product = None if dim is None or product is None else product * dim
        if size_is_stride:
            running = sizes[i]
        elif product is None:
            running = emit.mul(running, sizes[i])
        else:
            running = emit.const(product)
    return sizes, strides, size_in_bytes(emit, t, running)


def size_in_bytes(emit: Emit, t: MemRefType, count: SSAValue) -> SSAValue:
    """`ptrtoint(getelementptr null[count])`: the byte size of count elements."""
    gep = address(emit, emit.zero(), count, t.element_type)
    return emit.make_value(("llvm.ptrtoint", attr_key(gep.type)),
                           lambda: llvm.PtrToIntOp(gep, i64), [gep])


def address(emit: Emit, base: SSAValue, index: SSAValue, elem: Attribute) -> SSAValue:
    """`llvm.getelementptr base[index] : elem`."""
    return emit.make_value(
        ("llvm.getelementptr", attr_key(base.type), attr_key(index.type), attr_key(elem)),
        lambda: llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], elem, ssa_indices=[index]),
        [base, index])


def build_descriptor(
    emit: Emit, t: MemRefType, ptr: SSAValue, sizes: Sequence[SSAValue],
    strides: Sequence[SSAValue],
) -> SSAValue:
    desc_type = convert_type(t)
    desc = emit.make_value(("llvm.mlir.undef", attr_key(desc_type)),
                           lambda: llvm.UndefOp(desc_type), [])
    desc = emit.insert(desc, ptr, [0])
    desc = emit.insert(desc, ptr, [1])
    desc = emit.insert(desc, emit.const(0), [2])
    for i, size in enumerate(sizes):
        desc = emit.insert(desc, size, [3, i])
    for i, stride in enumerate(strides):
        desc = emit.insert(desc, stride, [4, i])
    return desc


def num_elements(emit: Emit, t: MemRefType, desc: SSAValue) -> SSAValue:
    shape = static_shape(t)
    if all(d is not None for d in shape):
        n = 1
        for d in shape:
            assert d is not None
            n *= d
        return emit.const(n)
    # Identity layout: the outermost stride times the outermost size.
    stride = emit.extract(desc, [4, 0], i64)
    size = emit.extract(desc, [3, 0], i64)
    return emit.mul(stride, size)


def _ptr_type(desc: SSAValue) -> Attribute:
    """The pointer type of a descriptor (its memory space's address space)."""
    t = desc.type
    return t.types.data[0] if isinstance(t, llvm.LLVMStructType) else PTR


def aligned_ptr(emit: Emit, desc: SSAValue) -> SSAValue:
    return emit.extract(desc, [1], _ptr_type(desc))


def allocated_ptr(emit: Emit, desc: SSAValue) -> SSAValue:
    return emit.extract(desc, [0], _ptr_type(desc))


def generic_ptr(emit: Emit, ptr: SSAValue) -> SSAValue:
    """`ptr` in the default address space (`llvm.addrspacecast` if needed),
    as the runtime calls take it."""
    if ptr.type == PTR:
        return ptr
    source = ptr.type
    return emit.make_value(("llvm.addrspacecast", attr_key(source)),
                           lambda: AddrSpaceCastOp(ptr, PTR), [ptr])


def element_address(emit: Emit, t: MemRefType, desc: SSAValue,
                    indices: Sequence[SSAValue]) -> SSAValue:
    base = aligned_ptr(emit, desc)
    shape = static_shape(t)
    offset = indices[-1]
    if len(indices) > 1:
        terms: list[SSAValue] = []
        for i, idx in enumerate(indices[:-1]):
            inner = shape[i + 1:]
            if all(d is not None for d in inner):
                n = 1
                for d in inner:
                    assert d is not None
                    n *= d
                if n == 1:  # a unit stride needs no multiplication
                    terms.append(idx)
                    continue
                stride = emit.const(n)
            else:
                stride = emit.extract(desc, [4, i], i64)
            terms.append(emit.mul(idx, stride))
        offset = terms[0]
        for term in terms[1:]:
            offset = emit.add(offset, term)
        offset = emit.add(offset, indices[-1])
    return address(emit, base, offset, t.element_type)


# -- patterns -------------------------------------------------------------------


class FuncToLLVM(_StatePattern):
    @converts
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        prologue = 0  # ops put at entry so far, kept in argument order
        for arg in list(block.args):
            if isinstance(arg.type, MemRefType):
                prologue += expand_memref_arg(self.state, rewriter, op, arg, prologue)
                continue
            new_type = convert_type(arg.type)
            if new_type == arg.type:
                continue
            new_arg = rewriter.insert_block_argument(block, arg.index, new_type)
            new_arg.name_hint = arg.name_hint
            if arg.uses:
                cast = cast_op(new_arg, arg.type, op.location)
                rewriter.insert(cast, _entry_point(block, prologue))
                rewriter.replace_all_uses_with(arg, cast.results[0])
                prologue += 1
            rewriter.erase_block_argument(arg)
        results = [convert_type(t) for t in op.function_type.outputs.data]
        region = rewriter.move_region_contents_to_new_regions(op.body)
        new = llvm_func(op.sym_name.data, [a.type for a in block.args],
                        results[0] if results else None, op.location, region)
        rewriter.replace(op, new)


def _entry_point(block: Block, after: int) -> InsertPoint:
    """Right after the first `after` ops of `block` (the argument prologue)."""
    op = block.first_op
    for _ in range(after):
        assert op is not None
        op = op.next_op
    return InsertPoint.before(op) if op is not None else InsertPoint.at_end(block)


def expand_memref_arg(state: ConversionState, rewriter: PatternRewriter,
                      fn: func.FuncOp, arg: BlockArgument, prologue: int) -> int:
    """A memref argument becomes its descriptor's fields, put back together
    into a descriptor at entry (upstream's calling convention); returns the
    number of ops put at entry, after the `prologue` ones already there."""
    t = arg.type
    assert isinstance(t, MemRefType)
    block = fn.body.block
    fields = [rewriter.insert_block_argument(block, arg.index + i, field_type)
              for i, field_type in enumerate(descriptor_fields(t))]
    emit = Emit(state, rewriter, fn, point=_entry_point(block, prologue))
    desc_type = convert_type(t)
    desc = emit.make_value(("llvm.mlir.undef", attr_key(desc_type)),
                           lambda: llvm.UndefOp(desc_type), [])
    for field, position in zip(fields, descriptor_positions(len(t.get_shape())), strict=True):
        desc = emit.insert(desc, field, list(position))
    added = 1 + len(fields)
    if arg.uses:
        cast = cast_op(desc, t, fn.location)
        emit.place(cast)
        rewriter.replace_all_uses_with(arg, cast.results[0])
        added += 1
    rewriter.erase_block_argument(arg)
    return added


class ReturnToLLVM(_StatePattern):
    @converts
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        values = self.state.lookup_all(list(op.arguments), op)
        rewriter.replace(op, llvm_return(op.location, values))


class ConstantToLLVM(_StatePattern):
    @converts
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        value: Attribute = op.value
        source_type = op.results[0].type
        result_type = convert_type(source_type)
        if isinstance(source_type, IndexType):
            assert isinstance(value, IntegerAttr)
            value = index_attr(value.value.data)
        new = Emit(self.state, rewriter, op).make_value(
            ("llvm.mlir.constant of", attr_key(value), attr_key(result_type)),
            lambda: llvm.ConstantOp(value, result_type), [])
        self.state.replace(op, [new], rewriter)


class LoadToLLVM(_StatePattern):
    @converts
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        emit = Emit(self.state, rewriter, op)
        desc = self.state.lookup(op.memref, op)
        indices = self.state.lookup_all(list(op.indices), op)
        addr = element_address(emit, t, desc, indices)
        elem = t.element_type
        value = emit.make_value(("llvm.load", attr_key(addr.type), attr_key(elem)),
                                lambda: llvm.LoadOp(addr, elem), [addr])
        self.state.replace(op, [value], rewriter)


class StoreToLLVM(_StatePattern):
    @converts
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        emit = Emit(self.state, rewriter, op)
        desc = self.state.lookup(op.memref, op)
        indices = self.state.lookup_all(list(op.indices), op)
        value = self.state.lookup(op.value, op)
        addr = element_address(emit, t, desc, indices)
        emit.make(("llvm.store", attr_key(value.type), attr_key(addr.type)),
                  lambda: llvm.StoreOp(value, addr), [value, addr])
        self.state.replace(op, [], rewriter)


class HostAllocToLLVM(_StatePattern):
    """`memref.alloc` -> `malloc(size)` and a descriptor."""

    @converts
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        emit = Emit(self.state, rewriter, op)
        dynamic = self.state.lookup_all(list(op.dynamic_sizes), op)
        sizes, strides, nbytes = alloc_sizes(emit, t, dynamic)
        ptr = emit.call_value("malloc", [nbytes], PTR)
        self.state.replace(op, [build_descriptor(emit, t, ptr, sizes, strides)], rewriter)


class HostDeallocToLLVM(_StatePattern):
    """`memref.dealloc` -> `free(allocated pointer)`."""

    @converts
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter) -> None:
        emit = Emit(self.state, rewriter, op)
        emit.call("free", [allocated_ptr(emit, self.state.lookup(op.memref, op))])
        self.state.replace(op, [], rewriter)


class DimToLLVM(_StatePattern):
    """`memref.dim` by a constant index: the static size, or the descriptor's."""

    @converts
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter) -> None:
        t = op.source.type
        assert isinstance(t, MemRefType)
        index_op = self.state.lookup(op.index, op).owner
        assert isinstance(index_op, (arith.ConstantOp, llvm.ConstantOp)), \
            "memref.dim by a constant index"
        index_attr_ = index_op.value
        assert isinstance(index_attr_, IntegerAttr)
        k = int(index_attr_.value.data)
        emit = Emit(self.state, rewriter, op)
        size = static_shape(t)[k]
        if size is not None:
            value = emit.const(size)
        else:
            value = emit.extract(self.state.lookup(op.source, op), [3, k], i64)
        self.state.replace(op, [value], rewriter)


def llvm_return(location: LocationAttr, values: Sequence[SSAValue] = ()) -> llvm.ReturnOp:
    """`llvm.return` (with at most one value)."""
    if not values:
        new: llvm.ReturnOp = op_from("llvm.return", llvm.ReturnOp, [], location)
        return new
    value = values[0]
    returned: llvm.ReturnOp = op_from(("llvm.return", attr_key(value.type)),
                                      lambda: llvm.ReturnOp(value), [value], location)
    return returned


def std_patterns(state: ConversionState) -> list[RewritePattern]:
    return [
        FuncToLLVM(state),
        ReturnToLLVM(state),
        ConstantToLLVM(state),
        LoadToLLVM(state),
        StoreToLLVM(state),
        HostAllocToLLVM(state),
        HostDeallocToLLVM(state),
        DimToLLVM(state),
    ]
