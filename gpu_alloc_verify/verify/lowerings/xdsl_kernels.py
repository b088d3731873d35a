"""The `gpu.module @kernels` of a program, as `convert-gpu-to-nvvm` leaves it.

The in-process lowerings re-create `gpu-to-llvm`, which runs once the
kernels are converted (`gpu.module(convert-gpu-to-nvvm),gpu-to-llvm`): so
the source module gets its kernels in that converted form.  By default each
kernel is only its converted signature (an external `llvm.func @<name>`
marked `gpu.kernel` and `nvvm.kernel`: the name says which catalogue kernel
and buffer type it is); with `bodies`, it is built from the catalogue
(`verify.model.kernels`) the way LLVM 19 prints it: an `llvm.func`
marked `gpu.kernel` and `nvvm.kernel` whose memref parameters are expanded
into the descriptor's fields and put back together at entry, thread and
block ids read from NVVM special registers, `memref.dim` / `load` / `store`
through the descriptor, the bounds check still an `scf.if`, and the module
ends in `gpu.module_end` (19's generic form: 19 requires it, 22 refuses
it).  (LLVM 19 also leaves an unused cast of each rebuilt descriptor to its
memref type; 22 drops it, and so does this.)

A whole kernel is built once per process and cloned into each module.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import gpu, llvm, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    UnknownLoc,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gpu_alloc_verify.verify.lowerings.xdsl_convert import (
    convert_type,
    dense_i64,
    descriptor_fields,
    descriptor_positions,
    memory_space,
    pointer_type,
)
from gpu_alloc_verify.verify.lowerings.xdsl_fastir import op_from
from gpu_alloc_verify.verify.lowerings.xdsl_gpu_ops import (
    BlockDimXOp,
    BlockIdXOp,
    ModuleEndOp,
    ThreadIdXOp,
    ThreadIdYOp,
)
from gpu_alloc_verify.verify.model.kernels import SHAPES
from gpu_alloc_verify.verify.model.program import FLOAT_TYPES, KernelRef

_ULT = 6  # llvm.icmp predicate


class _Body:
    """Appends ops to a block and hands back their results."""

    def __init__(self, block: Block) -> None:
        self.block = block

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int) -> SSAValue:
        return self.add(llvm.ConstantOp(IntegerAttr(value, IndexType()), i64))

    def register(self, op: Operation) -> SSAValue:
        """An NVVM register (i32), sign-extended to an index (i64)."""
        return self.add(llvm.SExtOp(self.add(op), i64))

    def binary(self, cls: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        # No overflow flags property: xDSL's default (an i32) is not MLIR's.
        return self.add(cls.create(operands=[a, b], result_types=[a.type]))


def _descriptor(body: _Body, fields: Sequence[SSAValue], t: MemRefType) -> SSAValue:
    desc = body.add(llvm.UndefOp(convert_type(t)))
    for field, position in zip(fields, descriptor_positions(len(t.get_shape())), strict=True):
        desc = body.add(llvm.InsertValueOp(dense_i64(position), desc, field))
    return desc


def _size(body: _Body, t: MemRefType, desc: SSAValue, k: int) -> SSAValue:
    """`memref.dim` by a constant: the static size or the descriptor's."""
    size = t.get_shape()[k]
    if size >= 0:
        return body.const(size)
    return body.add(llvm.ExtractValueOp(dense_i64((3, k)), desc, i64))


def _address(body: _Body, t: MemRefType, desc: SSAValue, idx: list[SSAValue]) -> SSAValue:
    ptr_type = pointer_type(memory_space(t))
    base = body.add(llvm.ExtractValueOp(dense_i64((1,)), desc, ptr_type))
    offset = idx[0]
    if len(idx) == 2:
        inner = t.get_shape()[1]
        stride = body.const(inner) if inner >= 0 else \
            body.add(llvm.ExtractValueOp(dense_i64((4, 0)), desc, i64))
        offset = body.binary(llvm.AddOp, body.binary(llvm.MulOp, idx[0], stride), idx[1])
    return body.add(llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], t.element_type,
                               ssa_indices=[offset], result_type=ptr_type))


def _arith(elem: str, op: str) -> type[Operation]:
    floats = {"add": llvm.FAddOp, "mul": llvm.FMulOp}
    ints = {"add": llvm.AddOp, "mul": llvm.MulOp}
    return (floats if elem in FLOAT_TYPES else ints)[op]


def _in_bounds(body: _Body, t: MemRefType, desc: SSAValue
               ) -> tuple[SSAValue, list[SSAValue]]:
    """`(i < dim 0) [and (j < dim 1)]` and the indices `[i] / [i, j]`."""
    block_id = body.register(BlockIdXOp())
    block_dim = body.register(BlockDimXOp())
    thread_id = body.register(ThreadIdXOp())
    i = body.binary(llvm.AddOp, body.binary(llvm.MulOp, block_id, block_dim), thread_id)
    cond = body.add(llvm.ICmpOp(i, _size(body, t, desc, 0), IntegerAttr(_ULT, i64)))
    if len(t.get_shape()) == 1:
        return cond, [i]
    j = body.register(ThreadIdYOp())
    cond_j = body.add(llvm.ICmpOp(j, _size(body, t, desc, 1), IntegerAttr(_ULT, i64)))
    return body.add(llvm.AndOp(cond, cond_j)), [i, j]


def _shape_body(body: _Body, kernel: KernelRef, t: MemRefType,
                descs: dict[str, SSAValue], scalar: SSAValue | None,
                idx: list[SSAValue]) -> None:
    """The in-bounds part of each catalogue shape."""
    elem = kernel.type.elem

    def load(name: str) -> SSAValue:
        return body.add(llvm.LoadOp(_address(body, t, descs[name], idx), t.element_type))

    def store(value: SSAValue, name: str) -> None:
        body.add(llvm.StoreOp(value, _address(body, t, descs[name], idx)))

    shape = kernel.shape
    if shape == "fill":
        assert scalar is not None
        store(scalar, "out")
    elif shape == "scale":
        assert scalar is not None
        store(body.binary(_arith(elem, "mul"), load("buf"), scalar), "buf")
    elif shape == "add":
        x, y = load("a"), load("b")
        store(body.binary(_arith(elem, "add"), x, y), "out")
    elif shape == "copy":
        store(load("src"), "dst")
    else:  # pragma: no cover - the catalogue is closed
        raise KeyError(shape)


@cache
def _kernel(kernel: KernelRef, t: MemRefType) -> llvm.FuncOp:
    shape = SHAPES[kernel.shape]
    fields = descriptor_fields(t)
    scalar_type: list[Attribute] = [t.element_type] if shape.scalar else []
    arg_types = fields * len(shape.buffers) + scalar_type
    block = Block(arg_types=arg_types)
    body = _Body(block)
    descs: dict[str, SSAValue] = {}
    for n, name in enumerate(shape.buffers):
        args = list(block.args[n * len(fields):(n + 1) * len(fields)])
        descs[name] = _descriptor(body, args, t)
    scalar = block.args[-1] if shape.scalar else None
    cond, idx = _in_bounds(body, t, descs[shape.buffers[0]])
    then = Block()
    inner = _Body(then)
    _shape_body(inner, kernel, t, descs, scalar, idx)
    then.add_op(scf.YieldOp())
    body.add(scf.IfOp(cond, [], Region(then), Region()))
    body.add(llvm.ReturnOp())
    fn = llvm.FuncOp(kernel.name, llvm.LLVMFunctionType(arg_types, None),
                     linkage=llvm.LinkageAttr("external"), body=Region(block))
    fn.attributes["gpu.kernel"] = UnitAttr()
    fn.attributes["nvvm.kernel"] = UnitAttr()
    return fn


def _declaration(kernel: KernelRef, t: MemRefType) -> llvm.FuncOp:
    """The kernel's converted signature, without a body."""
    shape = SHAPES[kernel.shape]
    fields = descriptor_fields(t)
    scalar_type: list[Attribute] = [t.element_type] if shape.scalar else []
    arg_types = fields * len(shape.buffers) + scalar_type

    def canonical() -> llvm.FuncOp:
        fn = llvm.FuncOp(kernel.name, llvm.LLVMFunctionType(arg_types, None),
                         linkage=llvm.LinkageAttr("external"))
        fn.attributes["gpu.kernel"] = UnitAttr()
        fn.attributes["nvvm.kernel"] = UnitAttr()
        return fn

    decl: llvm.FuncOp = op_from(("kernel declaration", kernel), canonical, [],
                                UnknownLoc(), [Region()])
    return decl


def kernel_module(kernels: tuple[KernelRef, ...], types: dict[KernelRef, MemRefType],
                  bodies: bool = False) -> gpu.ModuleOp:
    """`gpu.module @kernels` holding `kernels` (`types`: each one's xDSL type):
    their converted signatures (the lowering's own minimal form: gpu-to-llvm
    never looks inside a kernel, and the name says which catalogue kernel it
    is), or with `bodies` the whole functions as LLVM 19 converts them
    (about ten times the cost of lowering the host code)."""
    make = _kernel if bodies else _declaration
    funcs: list[Operation] = [make(k, types[k]) for k in kernels]
    if bodies:
        funcs = [f.clone() for f in funcs]
    funcs.append(ModuleEndOp())  # LLVM 19's generic form has it (22's does not)
    module = gpu.ModuleOp.create(properties={"sym_name": StringAttr("kernels")},
                                 regions=[Region(Block(funcs))])
    return module


def kernel_symbol(kernel: KernelRef) -> SymbolRefAttr:
    """`@kernels::@<name>`."""
    return SymbolRefAttr("kernels", [kernel.name])

