"""IRDL definitions of the ops the in-process lowerings need and xDSL lacks.

`xdsl.dialects.gpu` has `gpu.alloc`, `gpu.dealloc`, `gpu.memcpy`,
`gpu.wait` and `gpu.launch_func` (used as they are), but no `gpu.memset`.
Upstream's generic form of `gpu.memset` is `(asyncDependencies..., dst,
value)` with an optional `!gpu.async.token` result and no operand-segment
attribute (one variadic group only), which is what this definition prints
and parses.  Also here: the NVVM special-register reads kernels lowered by
`convert-gpu-to-nvvm` use, and `llvm.addrspacecast`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, i32
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.dialects.llvm import GenericCastOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_result_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MemsetOp(IRDLOperation):
    """`gpu.memset [async] [deps] dst, value : memref<...>, elem`."""

    name = "gpu.memset"

    asyncDependencies = var_operand_def(AsyncTokenType)
    dst = operand_def(MemRefType)
    value = operand_def(Attribute)

    asyncToken = opt_result_def(AsyncTokenType)

    def __init__(
        self,
        dst: SSAValue | Operation,
        value: SSAValue | Operation,
        async_dependencies: Sequence[SSAValue | Operation] = (),
        is_async: bool = False,
    ) -> None:
        super().__init__(
            operands=[list(async_dependencies), dst, value],
            result_types=[[AsyncTokenType()] if is_async else []],
        )

    def verify_(self) -> None:
        dst_type = self.dst.type
        assert isinstance(dst_type, MemRefType)
        if self.value.type != dst_type.element_type:
            raise VerifyException(
                f"gpu.memset value type {self.value.type} does not match the element "
                f"type of {dst_type}"
            )


@irdl_op_definition
class ModuleEndOp(IRDLOperation):
    """`gpu.module_end`: the terminator LLVM 16-19 give a `gpu.module` (the
    generic form 19 parses and prints; 22 has none and refuses it)."""

    name = "gpu.module_end"


@irdl_op_definition
class AddrSpaceCastOp(GenericCastOp):
    """`llvm.addrspacecast`: a pointer into another address space."""

    name = "llvm.addrspacecast"


class _SregOp(IRDLOperation):
    """`nvvm.read.ptx.sreg.*`: an i32 special register of the running thread."""

    res = result_def(i32)

    def __init__(self) -> None:
        super().__init__(result_types=[i32])


@irdl_op_definition
class ThreadIdXOp(_SregOp):
    name = "nvvm.read.ptx.sreg.tid.x"


@irdl_op_definition
class ThreadIdYOp(_SregOp):
    name = "nvvm.read.ptx.sreg.tid.y"


@irdl_op_definition
class BlockIdXOp(_SregOp):
    name = "nvvm.read.ptx.sreg.ctaid.x"


@irdl_op_definition
class BlockDimXOp(_SregOp):
    name = "nvvm.read.ptx.sreg.ntid.x"


EXTRA_GPU_OPS: tuple[type[IRDLOperation], ...] = (
    MemsetOp, ModuleEndOp, AddrSpaceCastOp, ThreadIdXOp, ThreadIdYOp, BlockIdXOp, BlockDimXOp)


def load_extra_gpu_ops(ctx: Context) -> None:
    """Make a parsing context know `gpu.memset`, the NVVM register reads and
    `llvm.addrspacecast` (besides xDSL's dialects)."""
    for op in EXTRA_GPU_OPS:
        ctx.load_op(op)
