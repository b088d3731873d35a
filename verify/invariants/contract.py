"""`runtime-contract`: each call is one the chosen runtime's wrapper accepts.

Checked per profile (`--runtime cuda|hip|sycl`): the callee and arity exist;
stream arguments are streams and event arguments events (no kind mix-up,
no null event, no destroy of the null stream); no null stream where the
wrapper dereferences it; and, for HIP, whose mgpuMemAlloc ignores
host_shared, no host access to a buffer the source allocated host_shared.
"""

from __future__ import annotations

from verify.invariants.common import Findings, describe_path
from verify.invariants.context import CheckContext
from verify.model.fold import conj, disj, eq, one_of
from verify.model.runtime_api import PROFILES, roles
from verify.model.verdicts import CheckResult, Violation

_AN = {"stream": "a stream", "event": "an event"}


def check_runtime_contract(ctx: CheckContext) -> CheckResult:
    profile = PROFILES[ctx.runtime]
    f = Findings("runtime-contract", ctx)
    streams = [h for h, _ in ctx.lowered.handles_of("stream")]
    events = [h for h, _ in ctx.lowered.handles_of("event")]
    for call in ctx.lowered.calls:
        if call.is_host_access or not call.callee.startswith("mgpu"):
            continue
        sig = roles(call.callee, len(call.args))
        if sig is None:
            f.violations.append(Violation(
                "runtime-contract",
                f"{ctx.runtime} runtime has no {call.callee} taking {len(call.args)} argument(s)",
                {"source_op": call.source_op}, [call.source_op] if call.source_op else []))
            continue
        where = f"{call.callee} (from {call.source_op or '?'})"
        for role, value in zip(sig, call.args, strict=False):
            if role in ("stream", "event") and getattr(value, "_unknown", None) is not None:
                # A value the analysis could not follow may be anything.
                f.possible(call.guard, f"{where} may be given something else than {_AN[role]}",
                           about=[value])
                continue
            if role == "stream":
                f.query(conj(call.guard, one_of(value, events)),
                        f"{where} is given an event where a stream is expected",
                        [call.source_op])
                if call.callee in profile.needs_stream or call.callee == "mgpuStreamDestroy":
                    f.query(conj(call.guard, eq(value, 0)),
                            f"{where} is given the null stream, which the {ctx.runtime} "
                            "wrapper dereferences or cannot destroy", [call.source_op])
            elif role == "event":
                f.query(conj(call.guard, disj((one_of(value, streams), eq(value, 0)))),
                        f"{where} is given a stream or null where an event is expected",
                        [call.source_op])
    if ctx.runtime == "hip":
        _hip_host_access(ctx, f)
    for v in f.violations:
        if v.counterexample.get("path"):
            v.detail += ", " + describe_path(v.counterexample["path"])  # type: ignore[arg-type]
    return f.result()


def _hip_host_access(ctx: CheckContext, f: Findings) -> None:
    allocs = {op.result: op for op in ctx.source.allocs() if op.result}
    for place in ctx.source.hidden_host_access:
        f.unknown.append(f"{place} may read a buffer on the host: HIP host accesses of "
                         "host_shared buffers not decided")
    for call in ctx.lowered.calls:
        src = ctx.source.ops.get(call.source_op or "")
        if not call.is_host_access or src is None or not src.is_host_access:
            continue
        alloc = allocs.get(src.buffers[0]) if src.buffers else None
        if alloc is not None and alloc.host_shared:
            f.query(call.guard,
                    f"host access {src.id} of host_shared buffer from {alloc.id}: HIP's "
                    "mgpuMemAlloc ignores host_shared, so this reads device memory",
                    [src.id, alloc.id])
