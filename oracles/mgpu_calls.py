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
# The calls `dispatch` performs on a Runtime; any other is an UnknownCall.
SIMULATED = frozenset({
    "mgpuStreamCreate", "mgpuStreamDestroy", "mgpuStreamSynchronize", "mgpuStreamWaitEvent",
    "mgpuEventCreate", "mgpuEventDestroy", "mgpuEventSynchronize", "mgpuEventRecord",
    "mgpuMemAlloc", "mgpuMemAllocAsync", "mgpuMemFree", "mgpuMemFreeAsync", "mgpuMemcpy",
    "mgpuMemset32", "mgpuMemset16", "mgpuMemset64",
})
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


def dispatch(rt: Runtime, callee: str, args: Sequence[int], kinds: str) -> int | None:
    """Perform `callee(args)` on `rt`; the result for the calls that return one."""
    if callee in NO_EFFECT:
        return None
    if callee not in SIMULATED or kinds not in SIGNATURES[callee]:
        raise UnknownCall(f"@{callee} with argument kinds '{kinds}'")
    a = list(args)
    if callee == "mgpuStreamCreate":
        return rt.stream_create()
    if callee == "mgpuStreamDestroy":
        rt.stream_destroy(a[0])
    elif callee == "mgpuStreamSynchronize":
        rt.stream_synchronize(a[0])
    elif callee == "mgpuStreamWaitEvent":
        rt.stream_wait_event(a[0], a[1])
    elif callee == "mgpuEventCreate":
        return rt.event_create()
    elif callee == "mgpuEventDestroy":
        rt.event_destroy(a[0])
    elif callee == "mgpuEventSynchronize":
        rt.event_synchronize(a[0])
    elif callee == "mgpuEventRecord":
        rt.event_record(a[0], a[1])
    elif callee == "mgpuMemAlloc":
        if kinds == "ipi":
            return rt.mem_alloc(a[0], a[1], bool(a[2] & 1))
        if kinds == "ip":
            return rt.mem_alloc(a[0], a[1], False)
        return rt.mem_alloc_sync(a[0], bool(a[1] & 1))
    elif callee == "mgpuMemAllocAsync":
        return rt.mem_alloc_async(a[0], a[1], bool(a[2] & 1))
    elif callee == "mgpuMemFree":
        if kinds == "p":
            rt.mem_free_sync(a[0])
        else:
            rt.mem_free(a[0], a[1])
    elif callee == "mgpuMemFreeAsync":
        rt.mem_free_async(a[0], a[1])
    elif callee == "mgpuMemcpy":
        rt.memcpy(a[0], a[1], a[2], a[3])
    elif callee == "mgpuMemset32":
        rt.memset32(a[0], a[1], a[2], a[3])
    elif callee == "mgpuMemset16":
        rt.memset16(a[0], a[1], a[2], a[3])
    elif callee == "mgpuMemset64":
        rt.memset64(a[0], a[1], a[2], a[3])
    return None


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
