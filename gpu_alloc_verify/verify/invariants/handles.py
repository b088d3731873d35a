"""Handle lifetimes: `stream-no-use-after-destroy` and `event-no-leak`."""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.calls import Call
from gpu_alloc_verify.verify.invariants import solver
from gpu_alloc_verify.verify.invariants.common import (
    Findings,
    check_destroyed_once,
    describe_path,
    hidden_creates,
    sole_value,
    word_destroy_count,
)
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.runtime_api import DESTROYERS, roles
from gpu_alloc_verify.verify.model.values import literal, may_be_handle, unknown_vars
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId


def handle_args(call: Call) -> list[tuple[str, smt.ArithRef]]:
    """(role, value) of the stream and event arguments of a call."""
    sig = roles(call.callee, len(call.args)) or ()
    return [(r, a) for r, a in zip(sig, call.args, strict=False) if r in ("stream", "event")]


def _touches(u: Call, kind: str, h: int) -> list[tuple[str, smt.BoolRef, bool]]:
    """(what, when, hidden) for each way `u` may use handle `h` of `kind`;
    `hidden`: only if a value the analysis could not follow is `h` (then
    `when` is the path condition alone)."""
    if u.is_escape:
        assert u.flags is not None
        hit = fold.conj(u.guard, fold.eq(u.args[0], h))
        return [] if hit is fold.FALSE else [(f"{u.note}", hit, True)]
    out = []
    for role, value in handle_args(u):
        if role != kind or solver.cannot_equal(value, h):
            continue
        what = "destroyed twice" if u.callee in DESTROYERS else f"used by {u.callee}"
        if fold.unknown_only(value):
            out.append((what, u.guard, True))
        else:
            when = fold.conj(u.guard, fold.eq(value, h))
            out.append((what, when, _tainted(when)))
    return out


def _tainted(term: smt.ExprRef) -> bool:
    t = fold.taint(term)
    return bool(unknown_vars(term)) if t is None else t


class _UseIndex:
    """The calls that may take a handle of one kind, by the literal handle
    they take (an escape, or a call with a symbolic value that may be a
    handle, may take any), built once per kind: the later uses of a
    destroyed handle are looked up, not scanned for (a scan per destroy is
    quadratic in a long program)."""

    def __init__(self, calls: list[Call], kind: str) -> None:
        self.by_handle: dict[int, list[Call]] = {}
        self.any: list[Call] = []
        self.all: list[Call] = []  # every call above, in program order
        for u in calls:
            if u.is_escape:
                self.any.append(u)
                self.all.append(u)
                continue
            values = [v for role, v in handle_args(u) if role == kind and may_be_handle(v)]
            if not values:
                continue
            self.all.append(u)
            lits = {literal(v) for v in values}
            if None in lits:
                self.any.append(u)
            else:
                for x in lits:
                    self.by_handle.setdefault(x, []).append(u)  # type: ignore[arg-type]

    def after(self, d: Call, h: int | None) -> list[Call]:
        """The calls after `d` in its function that may take `h` (any handle
        for None), in order (a call with another literal handle never does:
        `_touches`)."""
        if h is None:
            return [u for u in self.all if u.index > d.index and u.func == d.func]
        found = [u for u in (*self.by_handle.get(h, ()), *self.any)
                 if u.index > d.index and u.func == d.func]
        return sorted(found, key=lambda u: u.index)


def _unshowable_destroy(f: Findings, d: Call, index: Callable[[str], _UseIndex]) -> None:
    """A destroy of a value the analysis could not follow (or an escape): it
    may free any handle it may equal, so a later use of one is `unknown`,
    never a violation it could show."""
    if f.settled:
        return
    kinds = ("stream", "event") if d.is_escape else (DESTROYERS[d.callee],)
    target = literal(d.args[0])
    later = [u for kind in kinds for u in index(kind).after(d, target)]
    if later:
        what = d.note if d.is_escape else f"destroyed by {d.callee} from {d.source_op or '?'}"
        first = later[0]
        use = first.note if first.is_escape else f"by {first.callee} from {first.source_op or '?'}"
        f.possible(fold.conj(d.guard, d.flags[0] if d.flags is not None else fold.TRUE,
                             fold.disj(u.guard for u in later)),
                   f"a handle {what} may be used afterwards ({use})",
                   about=[d.flags[0]] if d.flags is not None else unknown_vars(d.args[0]))


def _may_free(ctx: CheckContext, kind: str, arg: smt.ExprRef,
              by_kind: dict[str, dict[int, list[tuple[int, Call]]]]) -> list[tuple[int, Call]]:
    """The `kind` handles a destroy of `arg` may free, in order: the one its
    literal names, else all (each destroy asking about every handle is
    quadratic in a long function; the handles are indexed once per kind)."""
    value = sole_value(arg)
    if value is None:
        return list(ctx.lowered.handles_of(kind))
    if kind not in by_kind:
        by_kind[kind] = {}
        for h, create in ctx.lowered.handles_of(kind):
            by_kind[kind].setdefault(h, []).append((h, create))
    return by_kind[kind].get(value, [])


def check_use_after_destroy(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.STREAM_NO_USE_AFTER_DESTROY, ctx)
    calls = ctx.lowered.calls
    destroys = [c for c in calls if (c.callee in DESTROYERS or c.is_escape) and c.args]
    indexes: dict[str, _UseIndex] = {}

    def index(kind: str) -> _UseIndex:
        if kind not in indexes:
            indexes[kind] = _UseIndex(calls, kind)
        return indexes[kind]

    by_kind: dict[str, dict[int, list[tuple[int, Call]]]] = {}
    for d in destroys:
        if d.is_escape or _tainted(d.args[0]):
            _unshowable_destroy(f, d, index)
            continue
        kind = DESTROYERS[d.callee]
        for h, create in _may_free(ctx, kind, d.args[0], by_kind):
            if solver.cannot_equal(d.args[0], h):
                continue  # this destroy never frees h
            freed = fold.conj(d.guard, fold.eq(d.args[0], h))
            if freed is fold.FALSE:
                continue
            uses = [(u, what, when, hid) for u in index(kind).after(d, h)
                    for what, when, hid in _touches(u, kind, h)]
            shown = [(u, what, when) for u, what, when, hid in uses if not hid]
            hidden = [(u, what, when) for u, what, when, hid in uses if hid]
            if hidden:
                f.possible(fold.conj(freed, fold.disj(when for _, _, when in hidden)),
                           f"{kind} created by {create.source_op or '?'} may be used after "
                           f"its destroy from {d.source_op or '?'} (by {hidden[0][1]})")
            if not shown:
                continue
            # One question for all later uses; only a "yes" is asked again per
            # use, to name the one that breaks the rule.
            any_use = fold.disj(when for _, _, when in shown)
            first = solver.check(fold.conj(freed, any_use, ctx.lowered.explored),
                                 ctx.timeout_ms)
            if first.status == "unsat":
                continue
            for u, what, when in shown:
                text = what if what == "destroyed twice" else f"{what} after its destroy"
                hit = f.query(
                    fold.conj(freed, when),
                    f"{kind} created by {create.source_op or '?'} is {text} "
                    f"(destroy from {d.source_op or '?'}, use from {u.source_op or '?'})",
                    [create.source_op, d.source_op, u.source_op],
                    {**Roles(kind=kind, handle_from=create.source_op,
                             destroy_from=d.source_op, use_from=u.source_op).entries(),
                     "destroy": d.index, "use": u.index},
                )
                if hit:
                    v = f.violations[-1]
                    v.detail += ", " + describe_path(v.counterexample["path"])
                    return f.result()  # one counterexample per program is enough
    _foreign_twice(ctx, f, destroys)
    return f.result()


def _foreign(term: smt.ArithRef, ctx: CheckContext) -> bool:
    """A value the code did not create but destroys: a caller's handle or one
    the analysis could not follow (the same value, whatever it is)."""
    known = literal(term)
    if known is not None:
        return known in ctx.lowered.unknown_values
    return smt.is_const(term) and bool(unknown_vars(term))


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
                           [d.source_op, u.source_op],
                           {**Roles(kind=kind, destroy_from=d.source_op,
                                    use_from=u.source_op).entries(),
                            "destroy": d.index, "use": u.index}):
                    v = f.violations[-1]
                    v.detail += ", " + describe_path(v.counterexample["path"])
                    return


def check_event_no_leak(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.EVENT_NO_LEAK, ctx)
    hidden_creates(f, "events")
    destroys = ctx.lowered.calls_to("mgpuEventDestroy") + ctx.lowered.escapes()
    for h, create in ctx.lowered.handles_of("event"):
        times = check_destroyed_once(
            f, h, create.guard, destroys,
            f"event created by {create.source_op or '?'} is not destroyed exactly once",
            [create.source_op] + [d.source_op for d in destroys])
        if times is not None:
            word_destroy_count(f, "event", create, times)
    return f.result()
