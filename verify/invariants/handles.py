"""Handle lifetimes: `stream-no-use-after-destroy` and `event-no-leak`."""

from __future__ import annotations

import z3

from verify import fold, solver
from verify.extract import Call
from verify.invariants.common import Findings, describe_path, destroy_count, model_of
from verify.invariants.context import CheckContext
from verify.runtime_api import DESTROYERS, roles
from verify.verdicts import CheckResult


def handle_args(call: Call) -> list[tuple[str, z3.ArithRef]]:
    """(role, value) of the stream and event arguments of a call."""
    sig = roles(call.callee, len(call.args)) or ()
    return [(r, a) for r, a in zip(sig, call.args, strict=False) if r in ("stream", "event")]


def check_use_after_destroy(ctx: CheckContext) -> CheckResult:
    f = Findings("stream-no-use-after-destroy", ctx)
    calls = ctx.lowered.calls
    destroys = [c for c in calls if c.callee in DESTROYERS and c.args]
    for d in destroys:
        kind = DESTROYERS[d.callee]
        for h, create in ctx.lowered.handles_of(kind):
            if solver.cannot_equal(d.args[0], h):
                continue  # this destroy never frees h
            freed = fold.conj(d.guard, fold.eq(d.args[0], h))
            if freed is fold.FALSE:
                continue
            uses = [(u, value) for u in calls[d.index + 1:] if u.func == d.func
                    for role, value in handle_args(u)
                    if role == kind and not solver.cannot_equal(value, h)]
            if not uses:
                continue
            # One question for all later uses; only a "yes" is asked again per
            # use, to name the one that breaks the rule.
            any_use = fold.disj(fold.conj(u.guard, fold.eq(value, h)) for u, value in uses)
            first = solver.check(fold.conj(freed, any_use), ctx.timeout_ms)
            if first.status == "unsat":
                continue
            for u, value in uses:
                what = "destroyed twice" if u.callee == d.callee else \
                    f"used by {u.callee} after its destroy"
                hit = f.query(
                    fold.conj(freed, u.guard, fold.eq(value, h)),
                    f"{kind} created by {create.source_op or '?'} is {what} "
                    f"(destroy from {d.source_op or '?'}, use from {u.source_op or '?'})",
                    [create.source_op, d.source_op, u.source_op],
                    {"handle_from": create.source_op, "destroy": d.index, "use": u.index},
                )
                if hit:
                    v = f.violations[-1]
                    v.detail += ", " + describe_path(v.counterexample["path"])  # type: ignore[arg-type]
                    return f.result()  # one counterexample per program is enough
    return f.result()


def check_event_no_leak(ctx: CheckContext) -> CheckResult:
    f = Findings("event-no-leak", ctx)
    destroys = ctx.lowered.calls_to("mgpuEventDestroy")
    for h, create in ctx.lowered.handles_of("event"):
        count = destroy_count(destroys, h)
        n = z3.Int("destroy_count")
        bad = (fold.conj(create.guard, fold.boolean(count != 1)) if isinstance(count, int)
               else fold.conj(create.guard, n == count, n != 1))
        if f.query(bad,
                   f"event created by {create.source_op or '?'} is not destroyed exactly once",
                   [create.source_op] + [d.source_op for d in destroys]):
            v = f.violations[-1]
            times = (count if isinstance(count, int)
                     else model_of(f).eval(n, model_completion=True).as_long())
            v.counterexample["destroy_count"] = times
            v.detail = (f"event created by {create.source_op or '?'} (mgpuEventCreate) is "
                        f"destroyed {times} time(s), not exactly once, "
                        + describe_path(v.counterexample["path"]))  # type: ignore[arg-type]
    return f.result()
