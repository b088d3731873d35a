"""The host externals a lowered module calls, one external function each:
`malloc`/`free` (memref.alloc's host buffers, on the runtime), ROCm's
`mgpuMemGetDeviceMemRef1d*`, the runner utils' `printMemref*` (through
their C interface too; see `oracles.lowered_host`) and the scalar printers
`vector.print` lowers to.  A call with another
arity is no call these model: unknown, as any other external."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl_external,
    register_impls,
)
from xdsl.ir import Operation

from gpu_alloc_verify.oracles import lowered_host
from gpu_alloc_verify.oracles.llvm_values import Agg, Unsupported, type_name
from gpu_alloc_verify.oracles.lowered_xdsl.memory_ops import op_loc
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import machine
from gpu_alloc_verify.oracles.mgpu_calls import unknown_call

Values = PythonValues
_C_INTERFACE = "_mlir_ciface_"


def _arity(op: Operation, name: str, args: Values, n: int) -> None:
    """Unknown unless the call passes `n` arguments (its last operands: an
    indirect call's first is the function's address)."""
    if len(args) != n:
        operands = list(op.operands)[len(op.operands) - len(args):]
        kinds = "".join("p" if type_name(x.type) == "!llvm.ptr" else "i" for x in operands)
        raise Unsupported(str(unknown_call(name, kinds)))


@register_impls
class HostCalls(InterpreterFunctions):
    """One external function per host call; the memref printers' and
    `mgpuMemGetDeviceMemRef1d*`'s are added below the class."""

    @impl_external("malloc")
    def malloc(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        _arity(op, "malloc", args, 1)
        m = machine(interp)
        m.rt.set_location(op_loc(op))
        return (m.rt.host_alloc(int(args[0] or 0)),)

    @impl_external("free")
    def free(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        _arity(op, "free", args, 1)
        m = machine(interp)
        m.rt.set_location(op_loc(op))
        m.rt.host_free(int(args[0] or 0))
        return ()


_External = Callable[[Any, Interpreter, Operation, Values], Values]


def _device_memref(name: str) -> _External:
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        _arity(op, name, args, 5)
        _, aligned, offset, size, stride = (int(a or 0) for a in args)
        return (Agg({(0,): aligned, (1,): aligned, (2,): offset, (3, 0): size,
                     (4, 0): stride}),)
    return run


def _printer(name: str) -> _External:
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        lowered_host.print_memref(name, [int(a or 0) for a in args],
                                  lambda addr, n: m.read_bytes(op, addr, n))
        return ()
    return run


def _c_interface_printer(name: str) -> _External:
    """The C interface passes the unranked memref {rank, descriptor*}
    through a pointer (`llvm.emit_c_interface`)."""
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        _arity(op, _C_INTERFACE + name, args, 1)
        m = machine(interp)
        raw = m.read_bytes(op, int(args[0] or 0), 16)
        if raw is not None:
            lowered_host.print_memref(
                name, [int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")],
                lambda addr, n: m.read_bytes(op, addr, n))
        return ()
    return run


def _vector_printer(name: str, arity: int) -> _External:
    def run(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        _arity(op, name, args, arity)
        return ()  # stdout only: no buffer read, nothing the runtime observes
    return run


for _name, _n in lowered_host.VECTOR_PRINTERS.items():
    setattr(HostCalls, _name, impl_external(_name)(_vector_printer(_name, _n)))
for _name in lowered_host.DEVICE_MEMREF:
    setattr(HostCalls, _name, impl_external(_name)(_device_memref(_name)))
for _name in lowered_host.PRINTERS:
    setattr(HostCalls, _name, impl_external(_name)(_printer(_name)))
    setattr(HostCalls, _C_INTERFACE + _name,
            impl_external(_C_INTERFACE + _name)(_c_interface_printer(_name)))
register_impls(HostCalls)  # again: the added ones are part of it now
# The externals HostCalls implements.
HOST_CALLS: frozenset[str] = frozenset(name for name, _ in HostCalls._ext_impls())
