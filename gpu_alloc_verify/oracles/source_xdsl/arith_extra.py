"""`arith` ops xDSL's own implementations leave out (unsigned division,
min/max, extensions and truncations, a few float ones), on its value kinds:
`IntegerAttr` (read as two's complement of the width) and `FloatAttr`."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from gpu_alloc_verify.oracles.floats import ROUND
from gpu_alloc_verify.oracles.source_xdsl.values import INDEX_BITS, Unmodelled, as_int, scalar


def _bits(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return INDEX_BITS
    if isinstance(t, IntegerType):
        return t.width.data
    raise Unmodelled(f"an integer op on {t}")


def _u(v: object, t: Attribute) -> int:
    return as_int(v) & ((1 << _bits(t)) - 1)


def _s(v: object, t: Attribute) -> int:
    w, x = _bits(t), _u(v, t)
    return x - (1 << w) if x >> (w - 1) else x


def _div(a: int, b: int) -> int:
    if b == 0:
        raise Unmodelled("an integer division by zero (undefined behaviour)")
    return a // b


def _binary(f: Callable[[object, object, Attribute], int]
            ) -> Callable[[InterpreterFunctions, Interpreter, Operation, PythonValues],
                          PythonValues]:
    def run(self: InterpreterFunctions, interpreter: Interpreter, op: Operation,
            args: PythonValues) -> PythonValues:
        t = op.results[0].type
        return (scalar(f(args[0], args[1], op.operands[0].type), t),)
    return run


def _ceil(a: int, b: int) -> int:
    return -_div(-a, b)


@register_impls
class ArithExtraFunctions(InterpreterFunctions):
    run_divui = impl(arith.DivUIOp)(_binary(lambda a, b, t: _div(_u(a, t), _u(b, t))))
    run_remui = impl(arith.RemUIOp)(_binary(
        lambda a, b, t: _u(a, t) - _div(_u(a, t), _u(b, t)) * _u(b, t)))
    run_ceildivui = impl(arith.CeilDivUIOp)(_binary(lambda a, b, t: _ceil(_u(a, t), _u(b, t))))
    run_ceildivsi = impl(arith.CeilDivSIOp)(_binary(lambda a, b, t: _ceil(_s(a, t), _s(b, t))))
    run_maxsi = impl(arith.MaxSIOp)(_binary(lambda a, b, t: max(_s(a, t), _s(b, t))))
    run_minsi = impl(arith.MinSIOp)(_binary(lambda a, b, t: min(_s(a, t), _s(b, t))))
    run_maxui = impl(arith.MaxUIOp)(_binary(lambda a, b, t: max(_u(a, t), _u(b, t))))
    run_minui = impl(arith.MinUIOp)(_binary(lambda a, b, t: min(_u(a, t), _u(b, t))))
    run_shrui = impl(arith.ShRUIOp)(_binary(
        lambda a, b, t: _u(a, t) >> _u(b, t) if _u(b, t) < _bits(t) else 0))

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp,
                  args: PythonValues) -> PythonValues:
        return (scalar(_u(args[0], op.input.type), op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp,
                  args: PythonValues) -> PythonValues:
        return (scalar(_s(args[0], op.input.type), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp,
                   args: PythonValues) -> PythonValues:
        return (scalar(as_int(args[0]), op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp,
                   args: PythonValues) -> PythonValues:
        return (scalar(float(_s(args[0], op.input.type)), op.result.type),)

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp,
                 args: PythonValues) -> PythonValues:
        a, b = float(args[0].value.data), float(args[1].value.data)
        if b == 0.0:  # IEEE: a signed infinity, or NaN for 0/0 and NaN/0
            q = math.nan if a == 0.0 or a != a else math.copysign(math.inf, a) * \
                math.copysign(1.0, b)
        else:
            q = a / b
        return (scalar(q, op.result.type),)

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp,
                 args: PythonValues) -> PythonValues:
        return (scalar(float(args[0].value.data), op.result.type),)  # widening: exact

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp,
                   args: PythonValues) -> PythonValues:
        to = str(op.result.type)
        if to not in ROUND:
            raise Unmodelled(f"arith.truncf to {to}")
        return (scalar(ROUND[to](float(args[0].value.data)), op.result.type),)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp,
                 args: PythonValues) -> PythonValues:
        return (scalar(-float(args[0].value.data), op.result.type),)
