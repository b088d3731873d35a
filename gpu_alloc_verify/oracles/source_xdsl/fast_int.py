"""Integer results as xDSL's interpreter makes them, without its per-value
overhead.

xDSL's `scalar_attr` builds a fresh `IntegerType` for every `index` result
and checks the type with the generic `isa`: in a host loop of 10,000 rounds
that is most of the cost of each `arith.addi` and of each induction value.
`int_result` makes the same `IntegerAttr` (same value, truncated to the
width as `truncate_bits` does, same type), with `index`'s integer type made
once per width; `FastIntFunctions` runs `arith.addi`, `subi` and `muli`
on it exactly as xDSL's `ArithFunctions` does.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation


@lru_cache(maxsize=8)
def _int_type(bits: int) -> IntegerType:
    return IntegerType(bits)


def int_result(value: int, t: Attribute, index_bits: int) -> IntegerAttr | FloatAttr:
    """`scalar_attr(value, t, index_bits)` for an integer or index `t`."""
    if isinstance(t, IndexType):
        return IntegerAttr(value, _int_type(index_bits), truncate_bits=True)
    if isinstance(t, IntegerType):
        return IntegerAttr(value, t, truncate_bits=True)
    return scalar_attr(value, t, index_bits)  # type: ignore[arg-type]


def _binary(f: Callable[[int, int], int]) -> Callable[..., PythonValues]:
    def run(self: InterpreterFunctions, interpreter: Interpreter, op: Operation,
            args: PythonValues) -> PythonValues:
        t = op.results[0].type
        if not isinstance(t, IndexType | IntegerType):  # as xDSL asserts
            raise AssertionError(f"{op.name} of {t}")
        return (int_result(f(args[0].value.data, args[1].value.data), t,
                           interpreter.index_bitwidth),)
    return run


@register_impls
class FastIntFunctions(InterpreterFunctions):
    run_addi = impl(arith.AddiOp)(_binary(lambda a, b: a + b))
    run_subi = impl(arith.SubiOp)(_binary(lambda a, b: a - b))
    run_muli = impl(arith.MuliOp)(_binary(lambda a, b: a * b))
