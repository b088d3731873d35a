"""`scf.for unsigned` in the source, run as scf-to-cf lowers it.

xDSL's own `scf.for` reads its bounds as signed integers, so an i8 loop from
0 to 200 (stored as -56) runs no round; the upstream op compares unsigned
when it carries `unsignedCmp`.  This runs that form and leaves the signed
one to xDSL.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import builtin, scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.builtin import scalar_attr
from xdsl.interpreters.scf import ScfFunctions


def _width(t: Any, index_bits: int) -> int:
    return index_bits if isinstance(t, builtin.IndexType) else int(t.width.data)


@register_impls
class UnsignedForFunctions(InterpreterFunctions):
    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues
                ) -> PythonValues:
        if "unsignedCmp" not in op.properties and "unsignedCmp" not in op.attributes:
            # xDSL's own (its `impl` wraps the values in an OpImplResult)
            return ScfFunctions().run_for(interpreter, op, args).values  # type: ignore[attr-defined]
        lb, ub, step, *carried = args
        mask = (1 << _width(op.lb.type, interpreter.index_bitwidth)) - 1
        i, bound, stride = lb.value.data & mask, ub.value.data & mask, step.value.data & mask
        values = tuple(carried)
        while i < bound:
            values = interpreter.run_ssacfg_region(
                op.body, (scalar_attr(i, op.lb.type, interpreter.index_bitwidth), *values),
                "for_loop")
            i = (i + stride) & mask  # wraps as the lowered `add` does
        return values
