"""The `mgpu*` entry points: dispatch of a call to a `Runtime`, and call traces.

A trace is what a run said to the runtime, call by call.  Raw traces hold the
handles a particular runtime handed out; `normalize_trace` renames streams,
events and allocations by creation order ("s0", "e1", "m0+16"), so the trace
of the interpreter on the simulator and the trace of the real lowered code
through the native shim can be compared as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl_external,
    register_impls,
)
from xdsl.ir import Operation

from gpu_alloc_verify.oracles.runtime import Runtime
from gpu_alloc_verify.verify.model.runtime_effects import PROPOSED
from gpu_alloc_verify.verify.model.runtime_table import all_functions


def _kinds() -> dict[str, tuple[str, ...]]:
    """Callee -> its argument kinds, one string per known signature ("p"
    pointer/handle, "i" integer), from the C types of the runtime table:
    every upstream version and platform, and the split API's proposals."""
    out: dict[str, set[str]] = {}
    for fn in (*all_functions(), *PROPOSED):
        out.setdefault(fn.name, set()).add(fn.kinds)
    return {name: tuple(sorted(kinds)) for name, kinds in out.items()}


# mgpuMemAlloc: "ipi" (size, stream, isHostShared), LLVM 16's "ip" (size,
# stream), the split API's "ii" (size, isHostShared).
SIGNATURES: dict[str, tuple[str, ...]] = _kinds()
# Runtime functions with nothing a one-device run can observe: choosing the
# (only) device, and pinning host memory (the simulated memory is one space).
NO_EFFECT = frozenset({"mgpuSetDefaultDevice", "mgpuMemHostRegisterMemRef",
                       "mgpuMemHostUnregisterMemRef", "mgpuMemHostRegister",
                       "mgpuMemHostUnregister"})
CREATES = {"mgpuStreamCreate": "s", "mgpuEventCreate": "e", "mgpuMemAlloc": "m",
           "mgpuMemAllocAsync": "m"}


class UnknownCall(Exception):
    """A call to an external function the oracles do not model."""


@dataclass(frozen=True)
class RawCall:
    callee: str
    args: tuple[int, ...]
    kinds: str  # one "p" or "i" per argument
    result: int | None
    loc: str | None = None


NormalizedCall = tuple[str, tuple[str | int, ...]]


Args = PythonValues


@register_impls
class RuntimeCalls(InterpreterFunctions):
    """One external function per runtime call the simulated runtime performs:
    each does its call on `rt` (`kinds`: the argument kinds of the call being
    made, for the calls whose signature changed across versions) and returns
    its result, or nothing for a call that returns none.  The set of them is
    `SIMULATED`; any other call is unknown."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.kinds = ""

    @impl_external("mgpuStreamCreate")
    def stream_create(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        return (self.rt.stream_create(),)

    @impl_external("mgpuStreamDestroy")
    def stream_destroy(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.stream_destroy(a[0])
        return ()

    @impl_external("mgpuStreamSynchronize")
    def stream_synchronize(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.stream_synchronize(a[0])
        return ()

    @impl_external("mgpuStreamWaitEvent")
    def stream_wait_event(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.stream_wait_event(a[0], a[1])
        return ()

    @impl_external("mgpuEventCreate")
    def event_create(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        return (self.rt.event_create(),)

    @impl_external("mgpuEventDestroy")
    def event_destroy(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.event_destroy(a[0])
        return ()

    @impl_external("mgpuEventSynchronize")
    def event_synchronize(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.event_synchronize(a[0])
        return ()

    @impl_external("mgpuEventRecord")
    def event_record(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.event_record(a[0], a[1])
        return ()

    @impl_external("mgpuMemAlloc")
    def mem_alloc(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        if self.kinds == "ipi":
            return (self.rt.mem_alloc(a[0], a[1], bool(a[2] & 1)),)
        if self.kinds == "ip":  # LLVM 16: no host-shared flag
            return (self.rt.mem_alloc(a[0], a[1], False),)
        return (self.rt.mem_alloc_sync(a[0], bool(a[1] & 1)),)  # the split API's "ii"

    @impl_external("mgpuMemAllocAsync")
    def mem_alloc_async(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        return (self.rt.mem_alloc_async(a[0], a[1], bool(a[2] & 1)),)

    @impl_external("mgpuMemFree")
    def mem_free(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        if self.kinds == "p":  # the split API's synchronous free
            self.rt.mem_free_sync(a[0])
        else:
            self.rt.mem_free(a[0], a[1])
        return ()

    @impl_external("mgpuMemFreeAsync")
    def mem_free_async(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.mem_free_async(a[0], a[1])
        return ()

    @impl_external("mgpuMemcpy")
    def memcpy(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.memcpy(a[0], a[1], a[2], a[3])
        return ()

    @impl_external("mgpuMemset32")
    def memset32(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.memset32(a[0], a[1], a[2], a[3])
        return ()

    @impl_external("mgpuMemset16")
    def memset16(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.memset16(a[0], a[1], a[2], a[3])
        return ()

    @impl_external("mgpuMemset64")
    def memset64(self, interp: Interpreter, op: Operation, a: Args) -> Args:
        self.rt.memset64(a[0], a[1], a[2], a[3])
        return ()


_EXTERNALS = dict(RuntimeCalls._ext_impls())  # the framework's listing of them
SIMULATED = frozenset(_EXTERNALS)


def unknown_call(callee: str, kinds: str) -> UnknownCall:
    return UnknownCall(f"@{callee} with argument kinds '{kinds}'")


def dispatch(rt: Runtime, callee: str, args: Sequence[int], kinds: str) -> int | None:
    """Perform `callee(args)` on `rt` outside an interpreter (a replayed
    trace); the result for the calls that return one."""
    if callee in NO_EFFECT:
        return None
    effect = _EXTERNALS.get(callee)
    if effect is None or kinds not in SIGNATURES[callee]:
        raise unknown_call(callee, kinds)
    calls = RuntimeCalls(rt)
    calls.kinds = kinds
    # No interpreter nor op: the runtime calls use neither.
    values = effect(calls, cast(Interpreter, None), cast(Operation, None), tuple(args))
    return values[0] if values else None


def normalize_trace(raw: Sequence[RawCall]) -> list[NormalizedCall]:
    """Rename handles by creation order; integers stay as they are."""
    names: dict[int, str] = {}
    ranges: list[tuple[int, int, str]] = []
    counters: dict[str, int] = {}
    out: list[NormalizedCall] = []

    def pointer(v: int) -> str:
        if v == 0:
            return "null"
        if v in names:
            return names[v]
        for base, size, label in reversed(ranges):
            if base <= v < base + size:
                return f"{label}+{v - base}"
        for base, size, label in reversed(ranges):
            if v == base + size:
                return f"{label}+{size}"
        return "?"

    for call in raw:
        args: list[str | int] = []
        for v, k in zip(call.args, call.kinds, strict=True):
            args.append(pointer(v) if k == "p" else v)
        prefix = CREATES.get(call.callee)
        if prefix is not None and call.result:
            n = counters.get(prefix, 0)
            counters[prefix] = n + 1
            label = f"{prefix}{n}"
            names[call.result] = label
            if prefix == "m":
                ranges.append((call.result, call.args[0], label))
            args.append(f"-> {label}")
        out.append((call.callee, tuple(args)))
    return out
