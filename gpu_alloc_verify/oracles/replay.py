"""Replay the calls a native run made on the checking runtime.

The C shim only logs (it has no device and no semantics), so what the real
code did to its handles is judged here: each logged call is performed, in
order, on a `Runtime` (the simulator: handle lives, stream and event order,
the wrappers' contract), with the native run's handle and allocation values
translated to the runtime's own.  The outcome is what the real call sequence
does under the wrappers' semantics: live handles at exit, destroys of dead
handles, uses after destroy, device work unordered with device work.

What it cannot see: host loads and stores (the shim does not see them), the
memory behind a caller's buffers (their pointers are passed through, so
accesses to them are not checked), and kernel launches (logged with their
stream, not performed: `launch` entries are skipped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc_verify.oracles.mgpu_calls import RawCall, UnknownCall, dispatch
from gpu_alloc_verify.oracles.runtime import Outcome, Runtime


@dataclass
class Replay:
    outcome: Outcome
    skipped: list[str] = field(default_factory=list)  # calls not performed, and why


def replay(raw: Sequence[RawCall], rt: Runtime, locs: Sequence[str | None] | None = None
           ) -> Replay:
    """Perform `raw` on `rt`; `locs`: the source op of each call (a native
    trace has none; the interpreter's run of the same calls gives them)."""
    handles: dict[int, int] = {}  # native handle -> runtime handle
    ranges: list[tuple[int, int, int]] = []  # (native base, size, runtime base)
    skipped: list[str] = []

    def translate(value: int) -> int:
        if value in handles:
            return handles[value]
        for base, size, mapped in reversed(ranges):
            if base <= value < base + max(size, 1):
                return mapped + value - base
        return value

    for k, call in enumerate(raw):
        rt.set_location(locs[k] if locs is not None and k < len(locs) else None)
        if call.callee == "launch":
            skipped.append("a kernel launch (not performed)")
            continue
        args = [translate(a) if kind == "p" else a for a, kind in zip(call.args, call.kinds,
                                                                      strict=True)]
        try:
            result = dispatch(rt, call.callee, args, call.kinds)
        except UnknownCall as e:
            skipped.append(str(e))
            continue
        if result is not None and call.result:
            if call.callee in ("mgpuMemAlloc", "mgpuMemAllocAsync"):
                ranges.append((call.result, call.args[0], result))
            else:
                handles[call.result] = result
    rt.set_location(None)
    return Replay(rt.outcome(), skipped)
