"""Control flow of lowered modules: `scf` regions, `cf`/`llvm` branches,
returns, and calls (to the module's own functions, to host externals, whose
calls are `host_calls.HostCalls`, and to the `mgpu*` runtime, whose calls
are `mgpu_calls.RuntimeCalls`)."""

from __future__ import annotations

import re

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    Successor,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def
from xdsl.traits import IsTerminator

from gpu_alloc_verify.oracles import lowered_gpu
from gpu_alloc_verify.oracles.llvm_values import Unsupported, ints, prop, signed, type_name
from gpu_alloc_verify.oracles.lowered_xdsl.framework import op_type
from gpu_alloc_verify.oracles.lowered_xdsl.host_calls import HOST_CALLS
from gpu_alloc_verify.oracles.lowered_xdsl.memory_ops import op_loc
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import machine
from gpu_alloc_verify.oracles.mgpu_calls import NO_EFFECT, RawCall
from gpu_alloc_verify.verify.ir.lowered_ir import op_name

Values = PythonValues
Flow = tuple[TerminatorValue, Values]


def _call(interp: Interpreter, op: Operation, args: Values) -> Values:
    m = machine(interp)
    root = getattr(prop(op, "callee"), "root_reference", None)  # either model's ref
    operands = list(op.operands)
    values = list(args)
    if root is None:  # through a function pointer: its first operand
        target = int(values[0] or 0)
        if target not in m.addresses:
            raise Unsupported(f"indirect call through {target:#x}, no function's address")
        name, operands, values = m.addresses[target], operands[1:], values[1:]
    else:
        name = root.data
    fn = m.funcs.get(name)
    if fn is not None and fn.regions and fn.regions[0].blocks:
        return tuple(m.call_function(name, values))
    if name in HOST_CALLS:  # malloc, free, the memref printers, ...
        return tuple(m.call_external(name, op, tuple(values)))
    if name in NO_EFFECT:  # nothing observable; arguments may be aggregates
        return ()
    kinds = "".join("p" if type_name(x.type) == "!llvm.ptr" else "i" for x in operands)
    loc = op_loc(op)
    m.rt.set_location(loc)
    numbers = [int(a or 0) for a in values]
    if m.residue_streams and lowered_gpu.event_use(m, name, numbers):
        m.raw.append(RawCall(name, tuple(numbers), kinds, None, loc))
        return (None,)
    result = m.runtime_call(name, op, numbers, kinds)
    m.raw.append(RawCall(name, tuple(numbers), kinds, result, loc))
    return (result,)


def _cond_branch(interp: Interpreter, op: Operation, args: Values) -> Flow:
    then_args = getattr(op, "then_arguments", None)
    else_args = getattr(op, "else_arguments", None)
    if then_args is None or else_args is None:
        sizes = ints(prop(op, "operandSegmentSizes"))
        if len(sizes) != 3:
            raise Unsupported(f"{op_name(op)} without operand segments")
        ops = list(op.operands)
        then_args = ops[1 : 1 + sizes[1]]
        else_args = ops[1 + sizes[1] :]
    taken = 0 if args[0] else 1
    chosen = then_args if taken == 0 else else_args
    env = machine(interp).env
    return Successor(op.successors[taken], tuple(env[x] for x in chosen)), ()


@irdl_op_definition
class _LlvmSwitch(IRDLOperation):
    """`llvm.switch` as the interpreter's key: xDSL registers no such op, and
    a bare class (`framework.op_type`) is no terminator."""

    name = "llvm.switch"
    traits = traits_def(IsTerminator())


def _case_values(attr: object) -> list[int]:
    """An `llvm.switch`'s case values (a dense vector, or one splat value)."""
    get_values = getattr(attr, "get_values", None)
    if get_values is not None:
        return [int(v) for v in get_values()]
    m = re.search(r"dense<\[?([-\d, ]*)\]?>", str(attr))
    if m is None:
        raise Unsupported(f"llvm.switch case values {attr}")
    return [int(v) for v in m.group(1).split(",") if v.strip()]


def _switch(interp: Interpreter, op: Operation, args: Values) -> Flow:
    """`llvm.switch %v [default(args), case_k(args)...]`: the successor of
    the case equal to %v (modulo its width), else the default."""
    sizes = ints(prop(op, "operandSegmentSizes"))
    case_sizes = ints(prop(op, "case_operand_segments"))
    values = _case_values(prop(op, "case_values"))
    if len(sizes) != 3 or len(case_sizes) != len(values):
        raise Unsupported("llvm.switch without operand segments")
    w = machine(interp).width(op.operands[0].type)
    mask = (1 << w) - 1
    ops = list(op.operands)
    start, taken = 1 + sizes[1], 0
    chosen = ops[1:start]
    for k, v in enumerate(values):
        end = start + case_sizes[k]
        if taken == 0 and (v & mask) == (args[0] & mask):
            taken, chosen = k + 1, ops[start:end]
        start = end
    env = machine(interp).env
    return Successor(op.successors[taken], tuple(env[x] for x in chosen)), ()


@register_impls
class ControlFunctions(InterpreterFunctions):
    """One implementation per control-flow op and call."""

    @impl(op_type("llvm.call"))
    def run_llvm_call(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _call(interp, op, args)

    @impl(op_type("func.call"))
    def run_func_call(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return _call(interp, op, args)

    @impl(op_type("scf.if"))
    def run_if(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        region = op.regions[0] if args[0] else op.regions[1]
        if not region.blocks:
            return ()
        return tuple(interp.run_ssacfg_region(region, ()))

    @impl(op_type("scf.for"))
    def run_for(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        lb, ub, st, *inits = args
        w = machine(interp).width(op.operands[0].type)
        carried = tuple(inits)
        i = lb
        # `scf.for unsigned` compares as unsigned (scf-to-cf's `ult`): an i8
        # loop to 200 runs, where a signed reading of 200 (-56) runs nothing.
        read = (lambda v: v) if prop(op, "unsignedCmp") is not None else \
            (lambda v: signed(v, w))
        while read(i) < read(ub):
            carried = tuple(interp.run_ssacfg_region(op.regions[0], (i, *carried)))
            i = (i + st) & ((1 << w) - 1)
        return carried

    @impl(op_type("scf.while"))
    def run_while(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        """`before` ends in scf.condition(c, values): `after` takes the values
        and yields the next round's, until c is false; the op's results are
        then the values."""
        carried = args
        while True:
            passed = interp.run_ssacfg_region(op.regions[0], carried)
            if not passed:
                raise Unsupported("scf.while whose before region ends without scf.condition")
            if not passed[0]:
                return tuple(passed[1:])
            carried = tuple(interp.run_ssacfg_region(op.regions[1], tuple(passed[1:])))

    @impl_terminator(op_type("scf.condition"))
    def run_condition(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return ReturnedValues(args), ()

    @impl_terminator(op_type("scf.yield"))
    def run_yield(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return ReturnedValues(args), ()

    @impl_terminator(op_type("llvm.return"))
    def run_llvm_return(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return ReturnedValues(args), ()

    @impl_terminator(op_type("func.return"))
    def run_func_return(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return ReturnedValues(args), ()

    @impl_terminator(op_type("cf.br"))
    def run_cf_br(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return Successor(op.successors[0], args), ()

    @impl_terminator(op_type("llvm.br"))
    def run_llvm_br(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return Successor(op.successors[0], args), ()

    @impl_terminator(op_type("cf.cond_br"))
    def run_cf_cond_br(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return _cond_branch(interp, op, args)

    @impl_terminator(op_type("llvm.cond_br"))
    def run_llvm_cond_br(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return _cond_branch(interp, op, args)

    @impl_terminator(_LlvmSwitch)
    def run_llvm_switch(self, interp: Interpreter, op: Operation, args: Values) -> Flow:
        return _switch(interp, op, args)
