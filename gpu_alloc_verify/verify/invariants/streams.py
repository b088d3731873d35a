"""Stream discipline: `sync-alloc-no-stream` and `stream-no-leak`."""

from __future__ import annotations

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.calls import Call
from gpu_alloc_verify.verify.invariants.common import (
    Findings,
    check_destroyed_once,
    hidden_creates,
    word_destroy_count,
)
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.values import unknown_vars
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict

# Allocation entry points and the position of their stream argument.
ALLOC_STREAM_ARG = {"mgpuMemAlloc": 1, "mgpuMemAllocAsync": 1}


def alloc_stream_arg(call: Call) -> smt.ArithRef | None:
    pos = ALLOC_STREAM_ARG.get(call.callee)
    # The split API's sync mgpuMemAlloc(size, shared) takes no stream.
    if pos is None or len(call.args) < 3:
        return None
    return call.args[pos]


def may_be_stream(ctx: CheckContext, value: smt.ArithRef) -> smt.BoolRef:
    return fold.one_of(value, [h for h, _ in ctx.lowered.handles_of("stream")])


def check_sync_alloc_no_stream(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.SYNC_ALLOC_NO_STREAM, ctx)
    sync_ids = {op.id for op in ctx.lowering_input.sync_allocs()}
    if not sync_ids:
        return CheckResult(InvariantId.SYNC_ALLOC_NO_STREAM, Verdict.NOT_APPLICABLE,
                           reason="no synchronous gpu.alloc in the program")
    hidden_creates(f, "streams")
    for h, create in ctx.lowered.handles_of("stream"):
        if create.source_op in sync_ids:
            f.query(create.guard,
                    f"mgpuStreamCreate emitted for synchronous gpu.alloc {create.source_op}",
                    [create.source_op],
                    {**Roles(source_op=create.source_op).entries(), "handle": h})
    for call in ctx.lowered.calls:
        if call.source_op not in sync_ids:
            continue
        stream = alloc_stream_arg(call)
        if stream is None:
            continue
        hidden = unknown_vars(stream)
        if hidden:
            # A value the analysis could not follow may be a stream created
            # where it cannot see (an external function, a leftover op).
            f.possible(call.guard, f"{call.callee} for synchronous gpu.alloc "
                       f"{call.source_op} may run on a stream created elsewhere", about=hidden)
        f.query(fold.conj(call.guard, may_be_stream(ctx, stream)),
                f"{call.callee} for synchronous gpu.alloc {call.source_op} runs on a "
                f"created stream instead of none",
                [call.source_op], Roles(source_op=call.source_op).entries())
    return f.result()


def check_stream_no_leak(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.STREAM_NO_LEAK, ctx)
    hidden_creates(f, "streams")
    creates = list(ctx.lowered.handles_of("stream"))
    if not creates:
        return f.result()
    destroys = ctx.lowered.calls_to("mgpuStreamDestroy") + ctx.lowered.escapes()
    for h, create in creates:
        # A stream whose source token is never awaited may stay alive: the
        # source asked for that, the lowering is not to blame.
        awaited = ctx.source.awaited.get(create.source_op or "", fold.TRUE)
        found = check_destroyed_once(
            f, h, fold.conj(create.guard, awaited), destroys,
            f"stream created by {create.source_op or '?'} is not destroyed exactly once",
            [create.source_op])
        if found is not None:
            v = word_destroy_count(f, "stream", create, found, unnamed="an unknown op")
            v.marked_calls = sorted({c for c in [create.source_op]
                                     + [d.source_op for d in destroys] if c})
    return f.result()

