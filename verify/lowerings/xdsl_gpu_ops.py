"""IRDL definitions of the gpu ops the in-process lowerings need and xDSL lacks.

`xdsl.dialects.gpu` has `gpu.alloc`, `gpu.dealloc`, `gpu.memcpy` and
`gpu.wait` (used as they are), but no `gpu.memset`.  Upstream's generic form
of `gpu.memset` is `(asyncDependencies..., dst, value)` with an optional
`!gpu.async.token` result and no operand-segment attribute (one variadic
group only), which is what this definition prints and parses.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_result_def,
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


EXTRA_GPU_OPS: tuple[type[IRDLOperation], ...] = (MemsetOp,)


def load_extra_gpu_ops(ctx: Context) -> None:
    """Make a parsing context know `gpu.memset` (besides xDSL's gpu dialect)."""
    for op in EXTRA_GPU_OPS:
        ctx.load_op(op)
