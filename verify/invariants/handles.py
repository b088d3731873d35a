"""Handle lifetimes: `stream-no-use-after-destroy` and `event-no-leak`."""

from __future__ import annotations

import z3

from verify import fold, solver
from verify.extract import Call
from verify.extract_values import literal, unknown_vars
from verify.invariants.common import (
    Findings,
    count_in,
    describe_path,
    destroy_count,
    model_of,
    not_once,
)
from verify.invariants.context import CheckContext
from verify.runtime_api import DESTROYERS, roles
from verify.verdicts import CheckResult


def handle_args(call: Call) -> list[tuple[str, z3.ArithRef]]:
    """(role, value) of the stream and event arguments of a call."""
    sig = roles(call.callee, len(call.args)) or ()
    return [(r, a) for r, a in zip(sig, call.args, strict=False) if r in ("stream", "event")]


def _touches(u: Call, kind: str, h: int) -> list[tuple[str, z3.BoolRef]]:
    """(what, when) for each way `u` may use handle `h` of `kind`."""
    if u.is_escape:
        assert u.flags is not None
        hit = fold.conj(u.guard, fold.eq(u.args[0], h))
        return [] if hit is fold.FALSE else [(f"{u.note}", fold.conj(hit, u.flags[1]))]
    return [("destroyed twice" if u.callee in DESTROYERS else f"used by {u.callee}",
             fold.conj(u.guard, fold.eq(value, h)))
            for role, value in handle_args(u)
            if role == kind and not solver.cannot_equal(value, h)]


def _frees(d: Call, h: int) -> z3.BoolRef:
    hit = fold.conj(d.guard, fold.eq(d.args[0], h))
    if d.flags is not None and hit is not fold.FALSE:
        hit = fold.conj(hit, d.flags[0])
    return hit


def check_use_after_destroy(ctx: CheckContext) -> CheckResult:
    f = Findings("stream-no-use-after-destroy", ctx)
    calls = ctx.lowered.calls
    destroys = [c for c in calls if (c.callee in DESTROYERS or c.is_escape) and c.args]
    for d in destroys:
        kinds = ["stream", "event"] if d.is_escape else [DESTROYERS[d.callee]]
        for kind in kinds:
            for h, create in ctx.lowered.handles_of(kind):
                if solver.cannot_equal(d.args[0], h):
                    continue  # this destroy never frees h
                freed = _frees(d, h)
                if freed is fold.FALSE:
                    continue
                uses = [(u, what, when) for u in calls[d.index + 1:] if u.func == d.func
                        for what, when in _touches(u, kind, h)]
                if not uses:
                    continue
                # One question for all later uses; only a "yes" is asked again per
                # use, to name the one that breaks the rule.
                any_use = fold.disj(when for _, _, when in uses)
                first = solver.check(fold.conj(freed, any_use, ctx.lowered.explored),
                                     ctx.timeout_ms)
                if first.status == "unsat":
                    continue
                for u, what, when in uses:
                    text = (what if what == "destroyed twice" else
                            f"{what} after its destroy" if not u.is_escape else
                            f"{what} after its destroy (there it may be used)")
                    hit = f.query(
                        fold.conj(freed, when),
                        f"{kind} created by {create.source_op or '?'} is {text} "
                        f"(destroy from {d.source_op or '?'}"
                        f"{' ' + d.note if d.is_escape else ''}, use from "
                        f"{u.source_op or '?'})",
                        [create.source_op, d.source_op, u.source_op],
                        {"handle_from": create.source_op, "destroy": d.index, "use": u.index},
                    )
                    if hit:
                        v = f.violations[-1]
                        v.detail += ", " + describe_path(v.counterexample["path"])  # type: ignore[arg-type]
                        return f.result()  # one counterexample per program is enough
    _foreign_twice(ctx, f, destroys)
    return f.result()


def _foreign(term: z3.ArithRef, ctx: CheckContext) -> bool:
    """A value the code did not create but destroys: a caller's handle or one
    the analysis could not follow (the same value, whatever it is)."""
    known = literal(term)
    if known is not None:
        return known in ctx.lowered.unknown_values
    return z3.is_const(term) and bool(unknown_vars(term))


def _foreign_twice(ctx: CheckContext, f: Findings, destroys: list[Call]) -> None:
    """The same foreign value destroyed and then used again: a violation
    whatever that value is."""
    if f.violations:
        return
    calls = ctx.lowered.calls
    for d in destroys:
        if d.is_escape or not _foreign(d.args[0], ctx):
            continue
        kind = DESTROYERS[d.callee]
        for u in calls[d.index + 1:]:
            if u.func != d.func or u.is_escape:
                continue
            for role, value in handle_args(u):
                if role != kind or not (value is d.args[0] or literal(value) is not None
                                        and literal(value) == literal(d.args[0])):
                    continue
                what = "destroyed twice" if u.callee in DESTROYERS else \
                    f"used by {u.callee} after its destroy"
                if f.query(fold.conj(d.guard, u.guard),
                           f"the {kind} destroyed by {d.source_op or '?'} (not created here) is "
                           f"{what} (use from {u.source_op or '?'})",
                           [d.source_op, u.source_op], {"destroy": d.index, "use": u.index}):
                    v = f.violations[-1]
                    v.detail += ", " + describe_path(v.counterexample["path"])  # type: ignore[arg-type]
                    return


def check_event_no_leak(ctx: CheckContext) -> CheckResult:
    f = Findings("event-no-leak", ctx)
    destroys = ctx.lowered.calls_to("mgpuEventDestroy") + ctx.lowered.escapes()
    for h, create in ctx.lowered.handles_of("event"):
        count = destroy_count(destroys, h)
        if f.query(fold.conj(create.guard, not_once(count)),
                   f"event created by {create.source_op or '?'} is not destroyed exactly once",
                   [create.source_op] + [d.source_op for d in destroys]):
            v = f.violations[-1]
            times = count if isinstance(count, int) else count_in(model_of(f), count)
            v.counterexample["destroy_count"] = times
            v.detail = (f"event created by {create.source_op or '?'} (mgpuEventCreate) is "
                        f"destroyed {times} time(s), not exactly once, "
                        + describe_path(v.counterexample["path"]))  # type: ignore[arg-type]
    return f.result()
