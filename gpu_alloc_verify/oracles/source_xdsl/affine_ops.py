"""`affine` ops on the source interpreter's values, in place of xDSL's own
(which keep buffers as Python lists, read every operand as a dimension and
take constant loop bounds only): loads and stores go to runtime memory as
`memref.load`/`store` do, a map's operands split into dimensions and
symbols, loop bounds are the max of the lower map's results and the min of
the upper's, and loops carry `iter_args`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)

from gpu_alloc_verify.oracles.source_xdsl.host_ops import load_at, store_at, view
from gpu_alloc_verify.oracles.source_xdsl.values import (
    INDEX_BITS,
    Scalar,
    Unmodelled,
    as_int,
    scalar,
)


def _signed(v: Scalar) -> int:
    x = as_int(v) & ((1 << INDEX_BITS) - 1)
    return x - (1 << INDEX_BITS) if x >> (INDEX_BITS - 1) else x


def evaluate(amap: AffineMapAttr, operands: Sequence[Scalar]) -> list[int]:
    """The map's results for its operands (dimensions first, then symbols)."""
    m = amap.data
    values = [_signed(v) for v in operands]
    try:
        return list(m.eval(values[: m.num_dims], values[m.num_dims :]))
    except ZeroDivisionError:
        raise Unmodelled("an affine map dividing by zero") from None


@register_impls
class AffineMemFunctions(InterpreterFunctions):
    @impl(affine.LoadOp)
    def run_load(self, interpreter: Interpreter, op: affine.LoadOp,
                 args: PythonValues) -> PythonValues:
        assert op.map is not None
        idx = evaluate(op.map, args[1:])
        return (load_at(interpreter, op, view(args[0]), idx, op.result.type),)

    @impl(affine.StoreOp)
    def run_store(self, interpreter: Interpreter, op: affine.StoreOp,
                  args: PythonValues) -> PythonValues:
        assert op.map is not None
        store_at(interpreter, op, args[0], view(args[1]), evaluate(op.map, args[2:]))
        return ()

    @impl(affine.ApplyOp)
    def run_apply(self, interpreter: Interpreter, op: affine.ApplyOp,
                  args: PythonValues) -> PythonValues:
        return tuple(scalar(v, r.type) for v, r in
                     zip(evaluate(op.map, args), op.results, strict=True))

    @impl(affine.ForOp)
    def run_for(self, interpreter: Interpreter, op: affine.ForOp,
                args: PythonValues) -> PythonValues:
        n_lb, n_ub = len(op.lowerBoundOperands), len(op.upperBoundOperands)
        lb = max(evaluate(op.lowerBoundMap, args[:n_lb]))
        ub = min(evaluate(op.upperBoundMap, args[n_lb : n_lb + n_ub]))
        step = op.step.value.data
        carried: tuple[Any, ...] = tuple(args[n_lb + n_ub :])
        iv_type = op.body.block.args[0].type
        for i in range(lb, ub, step):
            carried = tuple(interpreter.run_ssacfg_region(
                op.body, (scalar(i, iv_type), *carried)))
        return carried

    @impl_terminator(affine.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: affine.YieldOp,
                  args: PythonValues) -> tuple[ReturnedValues, PythonValues]:
        return ReturnedValues(args), ()
