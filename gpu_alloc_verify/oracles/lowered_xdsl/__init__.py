"""The lowered-LLVM oracle's op implementations on xDSL's interpreter framework.

`framework`: the interpreter (dispatch over op names, for xDSL's ops and the
fast reader's); `scalar_ops`, `memory_ops`, `control_ops`, `gpu_ops`: one
implementation per op; `host_calls`: one external function per host call
(malloc, free, the memref printers); the runtime calls are
`oracles.mgpu_calls.RuntimeCalls` (one external function per `mgpu*` call).
`register_all` registers them all on an interpreter; `HANDLED_OPS` names the
ops they implement.  The machine that runs a module is
`oracles.lowered_interp`'s.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import InterpreterFunctions

from gpu_alloc_verify.oracles.lowered_xdsl.control_ops import ControlFunctions
from gpu_alloc_verify.oracles.lowered_xdsl.framework import NamedInterpreter, mlir_name
from gpu_alloc_verify.oracles.lowered_xdsl.gpu_ops import GpuFunctions
from gpu_alloc_verify.oracles.lowered_xdsl.host_calls import HostCalls
from gpu_alloc_verify.oracles.lowered_xdsl.memory_ops import MemoryFunctions
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import ScalarFunctions
from gpu_alloc_verify.oracles.mgpu_calls import RuntimeCalls
from gpu_alloc_verify.oracles.runtime import Runtime

FUNCTIONS: tuple[type[InterpreterFunctions], ...] = (
    ScalarFunctions, MemoryFunctions, ControlFunctions, GpuFunctions, HostCalls)
# The MLIR ops the lowered oracle implements (any other ends a run as unknown).
HANDLED_OPS: frozenset[str] = frozenset(
    mlir_name(cls) for functions in FUNCTIONS for cls, _ in functions._impls())


def register_all(interpreter: NamedInterpreter, rt: Runtime) -> RuntimeCalls:
    """Register every op implementation, and the runtime calls on `rt`, on
    `interpreter`; the runtime calls' functions (they take each call's
    argument kinds).  The op implementations hold no state: they are
    registered once per process and adopted from there."""
    interpreter.adopt(_registered_ops())
    calls = RuntimeCalls(rt)
    interpreter.register_implementations(calls)
    return calls


@cache
def _registered_ops() -> NamedInterpreter:
    template = NamedInterpreter(ModuleOp([]))
    for functions in FUNCTIONS:
        template.register_implementations(functions())
    return template
