"""`scf.for unsigned` in the source, run as scf-to-cf lowers it.

xDSL's own `scf.for` reads its bounds as signed integers, so an i8 loop from
0 to 200 (stored as -56) runs no round; the upstream op compares unsigned
when it carries `unsignedCmp`.  This runs that form, and runs the signed
one as xDSL's does (its induction values made as `fast_int` makes them).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import builtin, scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gpu_alloc_verify.oracles.source_xdsl.fast_int import int_result


def _width(t: Any, index_bits: int) -> int:
    return index_bits if isinstance(t, builtin.IndexType) else int(t.width.data)


@register_impls
class UnsignedForFunctions(InterpreterFunctions):
    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues
                ) -> PythonValues:
        lb, ub, step, *carried = args
        if "unsignedCmp" not in op.properties and "unsignedCmp" not in op.attributes:
            # As xDSL's own runs it, each induction value made as `fast_int` makes it.
            values = tuple(carried)
            for k in range(lb.value.data, ub.value.data, step.value.data):
                values = interpreter.run_ssacfg_region(
                    op.body, (int_result(k, op.lb.type, interpreter.index_bitwidth), *values),
                    "for_loop")
            return values
        mask = (1 << _width(op.lb.type, interpreter.index_bitwidth)) - 1
        i, bound, stride = lb.value.data & mask, ub.value.data & mask, step.value.data & mask
        values = tuple(carried)
        while i < bound:
            values = interpreter.run_ssacfg_region(
                op.body, (int_result(i, op.lb.type, interpreter.index_bitwidth), *values),
                "for_loop")
            i = (i + stride) & mask  # wraps as the lowered `add` does
        return values
