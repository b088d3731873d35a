"""Scalar ops of lowered modules: constants, integer and float arithmetic,
comparisons, selects, casts, aggregates and `affine.apply`.

Integers are Python ints modulo 2**width (unsigned), pointers ints, floats
floats, LLVM aggregates `Agg`s (see `oracles.llvm_values`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation
from xdsl.ir.affine import AffineMap

from gpu_alloc_verify.oracles import lowered_gpu
from gpu_alloc_verify.oracles.kernel_interp import ROUND, _fdiv, _frem
from gpu_alloc_verify.oracles.llvm_values import (
    ARITH_BINARY,
    BINARY,
    FLOAT_FMT,
    ICMP,
    Agg,
    Unsupported,
    bf16_bits,
    bf16_value,
    constant_value,
    ints,
    layout,
    prop,
    signed,
    type_name,
)
from gpu_alloc_verify.oracles.lowered_xdsl.framework import op_type
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.parse import parse_attribute

if TYPE_CHECKING:
    from gpu_alloc_verify.oracles.lowered_interp import _Machine

Values = PythonValues

# Float arithmetic, rounded once to the result type as the kernel
# interpreter and xDSL's FloatAttr round (IEEE: one correctly rounded op).
FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _fdiv, "rem": _frem,
}


def machine(interp: Interpreter) -> _Machine:
    """The lowered interpreter these functions are registered on."""
    return cast("_Machine", interp)


def _resize(interp: Interpreter, op: Operation, args: Values, sign_extend: bool) -> Values:
    m = machine(interp)
    value = int(args[0])
    w_in, w_out = m.width(op.operands[0].type), m.width(op.results[0].type)
    if sign_extend:
        value = signed(value, w_in)
    return (value & ((1 << w_out) - 1),)


def _constant(op: Operation) -> Values:
    return (constant_value(prop(op, "value")),)


def _zero(op: Operation) -> Values:
    name = type_name(op.results[0].type)
    if name in FLOAT_FMT:
        return (0.0,)
    if name == "!llvm.ptr" or name.startswith("i"):
        return (0,)
    return (Agg(default=0),)


def _undef(op: Operation) -> Values:
    name = type_name(op.results[0].type)
    return (Agg() if name.startswith("!llvm.struct") or name.startswith("!llvm.arr") else 0,)


def _icmp(interp: Interpreter, op: Operation, args: Values) -> Values:
    pred = prop(op, "predicate")
    assert isinstance(pred, IntegerAttr | fastparse.IntegerAttr)  # as `.value.data` needs
    w = machine(interp).width(op.operands[0].type)
    return (int(ICMP[int(pred.value.data)](args[0], args[1], w)),)


@register_impls
class ScalarFunctions(InterpreterFunctions):
    """One implementation per scalar op; the integer and float binary ops,
    one per name too, are added below the class."""

    @impl(op_type("llvm.mlir.constant"))
    def run_llvm_constant(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _constant(op)

    @impl(op_type("arith.constant"))
    def run_arith_constant(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _constant(op)

    @impl(op_type("llvm.mlir.zero"))
    def run_zero(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _zero(op)

    @impl(op_type("llvm.mlir.null"))
    def run_null(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _zero(op)

    @impl(op_type("llvm.mlir.undef"))
    def run_undef(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _undef(op)

    @impl(op_type("llvm.mlir.poison"))
    def run_poison(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _undef(op)

    @impl(op_type("llvm.fneg"))
    def run_fneg(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (-float(args[0]),)

    @impl(op_type("arith.negf"))
    def run_negf(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (-float(args[0]),)

    @impl(op_type("llvm.insertvalue"))
    def run_insertvalue(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (args[0].insert(ints(prop(op, "position")), args[1]),)

    @impl(op_type("llvm.extractvalue"))
    def run_extractvalue(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (args[0].extract(ints(prop(op, "position"))),)

    # A pointer is 64 bits: to a narrower integer and back loses the top.
    @impl(op_type("llvm.ptrtoint"))
    def run_ptrtoint(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("llvm.inttoptr"))
    def run_inttoptr(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    # One flat address space here: a pointer keeps its value across spaces.
    @impl(op_type("llvm.addrspacecast"))
    def run_addrspacecast(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (args[0],)

    @impl(op_type("llvm.bitcast"))
    def run_bitcast(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        src, dst = type_name(op.operands[0].type), type_name(op.results[0].type)
        value = args[0]
        if src == "bf16" and dst != "bf16":
            return (bf16_bits(float(value)),)
        if dst == "bf16" and src != "bf16":
            return (bf16_value(int(value)),)
        if src in FLOAT_FMT and dst not in FLOAT_FMT:
            value = int.from_bytes(struct.pack(FLOAT_FMT[src], value), "little")
        elif dst in FLOAT_FMT and src not in FLOAT_FMT:
            nbytes = layout(op.operands[0].type)[0]
            value = struct.unpack(FLOAT_FMT[dst], int(value).to_bytes(nbytes, "little"))[0]
        return (value,)

    @impl(op_type("llvm.trunc"))
    def run_trunc(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("llvm.zext"))
    def run_zext(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("llvm.sext"))
    def run_sext(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=True)

    @impl(op_type("arith.trunci"))
    def run_trunci(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("arith.extui"))
    def run_extui(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("arith.extsi"))
    def run_extsi(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=True)

    @impl(op_type("arith.index_cast"))
    def run_index_cast(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=True)

    @impl(op_type("arith.index_castui"))
    def run_index_castui(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _resize(interp, op, args, sign_extend=False)

    @impl(op_type("llvm.icmp"))
    def run_icmp(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _icmp(interp, op, args)

    @impl(op_type("arith.cmpi"))
    def run_cmpi(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _icmp(interp, op, args)

    @impl(op_type("llvm.select"))
    def run_llvm_select(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (args[1] if args[0] else args[2],)

    @impl(op_type("arith.select"))
    def run_arith_select(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return (args[1] if args[0] else args[2],)

    @impl(op_type("builtin.unrealized_conversion_cast"))
    def run_cast(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        if len(op.operands) != len(op.results):
            raise Unsupported("unrealized_conversion_cast with N:M values")
        values = []
        for value, r in zip(args, op.results, strict=True):
            if isinstance(value, lowered_gpu.ResidueToken) and \
                    "gpu.async.token" not in type_name(r.type):
                value = value.stream  # see lowered_gpu: where it is used as an event
            values.append(value)
        return tuple(values)

    @impl(op_type("affine.apply"))
    def run_affine_apply(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        amap = _affine_map(prop(op, "map"))
        values = [signed(x, 64) for x in args]  # index: two's complement
        try:
            (result,) = amap.eval(values[: amap.num_dims], values[amap.num_dims :])
        except ZeroDivisionError:
            raise Unsupported("affine.apply dividing by zero") from None
        return (result & ((1 << 64) - 1),)


def _int_binary(kind: str) -> Callable[[Any, Interpreter, Operation, Values], Values]:
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        w = machine(interp).width(op.results[0].type)
        return (BINARY[kind](args[0], args[1], w) & ((1 << w) - 1),)
    return run


def _float_binary(kind: str) -> Callable[[Any, Interpreter, Operation, Values], Values]:
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        t = type_name(op.results[0].type)
        if t not in ROUND:
            raise Unsupported(f"{op_name(op)} on {t}")
        a, b = (float(x) for x in args[:2])
        return (ROUND[t](FLOAT_BINARY[kind](a, b)),)
    return run


# The binary ops, one implementation per op name (built from their tables).
BINARY_OPS: dict[str, Callable[[Any, Interpreter, Operation, Values], Values]] = {
    **{f"llvm.f{k}": _float_binary(k) for k in FLOAT_BINARY},
    **{f"arith.{k}f": _float_binary(k) for k in FLOAT_BINARY},
    **{f"llvm.{k}": _int_binary(k) for k in BINARY},
    **{f"arith.{k}": _int_binary(v) for k, v in ARITH_BINARY.items()},
}
def _float_convert() -> Callable[[Any, Interpreter, Operation, Values], Values]:
    """fpext (exact) and fptrunc (rounded once to the narrower type); one
    function object per op name, as `impl` marks the function itself."""
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        t = type_name(op.results[0].type)
        if t not in ROUND:
            raise Unsupported(f"{op_name(op)} to {t}")
        return (ROUND[t](float(args[0])),)
    return run


# Float widening and narrowing (`arith.extf`/`truncf` as lowered, or left).
FLOAT_CONVERSIONS = ("llvm.fpext", "llvm.fptrunc", "arith.extf", "arith.truncf")
for _name, _run in [*BINARY_OPS.items(), *((n, _float_convert()) for n in FLOAT_CONVERSIONS)]:
    setattr(ScalarFunctions, "run_" + _name.replace(".", "_"), impl(op_type(_name))(_run))
register_impls(ScalarFunctions)  # again: the binary ops are part of it now


@lru_cache(maxsize=256)
def _map_of_text(text: str) -> AffineMap:
    attr = parse_attribute(text)  # the fast reader keeps the map as text
    if not isinstance(attr, AffineMapAttr):
        raise Unsupported(f"affine.apply with map {text}")
    return attr.data


def _affine_map(attr: Any) -> AffineMap:
    """An affine.apply's map, from xDSL's attribute or the fast reader's text."""
    amap = attr.data if isinstance(attr, AffineMapAttr) else _map_of_text(str(attr))
    if len(amap.results) != 1:
        raise Unsupported(f"affine.apply with {len(amap.results)} results")
    return amap
