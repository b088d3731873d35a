"""The `mgpu*` entry points: dispatch of a call to a `Runtime`, and call traces.

A trace is what a run said to the runtime, call by call.  Raw traces hold the
handles a particular runtime handed out; `normalize_trace` renames streams,
events and allocations by creation order ("s0", "e1", "m0+16"), so the trace
of the interpreter on the simulator and the trace of the real lowered code
through the native shim can be compared as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


Args = list[int]


def _mem_alloc(rt: Runtime, a: Args, kinds: str) -> int:
    if kinds == "ipi":
        return rt.mem_alloc(a[0], a[1], bool(a[2] & 1))
    if kinds == "ip":  # LLVM 16: no host-shared flag
        return rt.mem_alloc(a[0], a[1], False)
    return rt.mem_alloc_sync(a[0], bool(a[1] & 1))  # the split API's "ii"


def _mem_free(rt: Runtime, a: Args, kinds: str) -> None:
    if kinds == "p":  # the split API's synchronous free
        rt.mem_free_sync(a[0])
    else:
        rt.mem_free(a[0], a[1])


# What each call `dispatch` performs does on a Runtime (with the argument
# kinds, for the calls whose signature changed across versions); any other
# call is an UnknownCall.
_EFFECTS: dict[str, Callable[[Runtime, Args, str], int | None]] = {
    "mgpuStreamCreate": lambda rt, a, k: rt.stream_create(),
    "mgpuStreamDestroy": lambda rt, a, k: rt.stream_destroy(a[0]),
    "mgpuStreamSynchronize": lambda rt, a, k: rt.stream_synchronize(a[0]),
    "mgpuStreamWaitEvent": lambda rt, a, k: rt.stream_wait_event(a[0], a[1]),
    "mgpuEventCreate": lambda rt, a, k: rt.event_create(),
    "mgpuEventDestroy": lambda rt, a, k: rt.event_destroy(a[0]),
    "mgpuEventSynchronize": lambda rt, a, k: rt.event_synchronize(a[0]),
    "mgpuEventRecord": lambda rt, a, k: rt.event_record(a[0], a[1]),
    "mgpuMemAlloc": _mem_alloc,
    "mgpuMemAllocAsync": lambda rt, a, k: rt.mem_alloc_async(a[0], a[1], bool(a[2] & 1)),
    "mgpuMemFree": _mem_free,
    "mgpuMemFreeAsync": lambda rt, a, k: rt.mem_free_async(a[0], a[1]),
    "mgpuMemcpy": lambda rt, a, k: rt.memcpy(a[0], a[1], a[2], a[3]),
    "mgpuMemset32": lambda rt, a, k: rt.memset32(a[0], a[1], a[2], a[3]),
    "mgpuMemset16": lambda rt, a, k: rt.memset16(a[0], a[1], a[2], a[3]),
    "mgpuMemset64": lambda rt, a, k: rt.memset64(a[0], a[1], a[2], a[3]),
}
SIMULATED = frozenset(_EFFECTS)
# Calls that return a value; the others give None whatever the Runtime returns.
_RETURNS = frozenset({"mgpuStreamCreate", "mgpuEventCreate", "mgpuMemAlloc",
                      "mgpuMemAllocAsync"})


def dispatch(rt: Runtime, callee: str, args: Sequence[int], kinds: str) -> int | None:
    """Perform `callee(args)` on `rt`; the result for the calls that return one."""
    if callee in NO_EFFECT:
        return None
    effect = _EFFECTS.get(callee)
    if effect is None or kinds not in SIGNATURES[callee]:
        raise UnknownCall(f"@{callee} with argument kinds '{kinds}'")
    result = effect(rt, list(args), kinds)
    return result if callee in _RETURNS else None


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
