"""Helpers shared by the checkers: turning a solver answer into a verdict."""

from __future__ import annotations

import z3

from verify import fold, solver
from verify.extract import Call, LoweredFacts
from verify.extract_values import unknown_vars
from verify.invariants.context import CheckContext
from verify.verdicts import CheckResult, Violation


class Findings:
    """Collects the queries of one invariant; any `unknown` taints `holds`."""

    def __init__(self, invariant: str, ctx: CheckContext,
                 session: solver.Session | None = None) -> None:
        self.invariant = invariant
        self.session = session
        self.ctx = ctx
        self.violations: list[Violation] = []
        self.unknown: list[str] = []
        self.last_model: z3.ModelRef | None = None
        self.session_hidden: list[z3.ExprRef] = []  # unknown values in the session's base
        # The session's base made to hold whatever those values are (see
        # `verify.schedule.Schedule.strengthened`); None when it cannot be.
        self.strong_base: list[z3.BoolRef] | None = None

    def query(self, bad: z3.BoolRef, detail: str, marked: list[str | None],
              extra: dict[str, object] | None = None, forall: bool = True) -> bool:
        """Record a violation if `bad` is satisfiable on an explored path
        whatever the values the analysis could not follow; an `unknown` if
        it is satisfiable only for some of them.  True when violated.
        `forall=False`: a query over a session's base, where only "no
        unknown value involved" shows a violation."""
        bad = fold.conj(bad, self.ctx.lowered.explored)
        if bad is fold.FALSE:  # decided while building it: no solver call
            return False
        answer = (self.session.check(bad) if self.session is not None
                  else solver.check(bad, self.ctx.timeout_ms))
        if answer.status == "unknown":
            self.unknown.append(f"{detail}: {answer.reason}")
            return False
        if answer.status == "unsat":
            return False
        hidden = unknown_vars(bad)
        if self.session is not None and self.session_hidden:
            hidden = hidden + self.session_hidden
        if hidden:
            if self.session is None:
                shown = solver.check_forall(bad, hidden, self.ctx.timeout_ms) if forall else None
            elif not unknown_vars(bad) and self.strong_base is not None:
                shown = solver.check(fold.conj(*self.strong_base, bad), self.ctx.timeout_ms)
            else:
                shown = None
            if shown is None or shown.status != "sat":
                self.unknown.append(f"{detail}, unless {unfollowed(self.ctx.lowered, hidden)}")
                return False
            answer = shown
        self.last_model = answer.model
        if answer.path is not None:
            path = answer.path
        else:
            assert answer.model is not None
            path = solver.bool_assignment(answer.model, bad)
        cex: dict[str, object] = {"path": path}
        if extra:
            cex.update(extra)
        self.violations.append(
            Violation(self.invariant, detail, cex, sorted({m for m in marked if m}))
        )
        return True

    def result(self) -> CheckResult:
        if self.violations:
            return CheckResult(self.invariant, "violated", self.violations)
        cuts = reachable_cuts(self.ctx)
        if self.unknown or cuts:
            return CheckResult(self.invariant, "unknown",
                               reason="; ".join(dict.fromkeys(self.unknown + cuts)))
        return CheckResult(self.invariant, "holds")


def unfollowed(facts: LoweredFacts, hidden: list[z3.ExprRef]) -> str:
    """What the values a verdict depends on are, in words."""
    parts: list[str] = []
    for v in hidden:
        name = str(v)
        if name[:2] in ("!d", "!u"):
            call = facts.calls[int(name[2:])]
            parts.append(f"a handle {call.note} "
                         f"{'destroys' if name[1] == 'd' else 'uses'} it")
        else:
            parts.append(f"{facts.unknowns.get(name, name)} is a handle")
    return "; ".join(dict.fromkeys(parts)) or "values the analysis cannot follow"


def reachable_cuts(ctx: CheckContext) -> list[str]:
    """Reasons of the unexplored paths that are reachable (computed once per context)."""
    if ctx.cut_reasons is None:
        ctx.cut_reasons = [f"not explored: {cut.reason}" for cut in ctx.lowered.cuts
                           if solver.check(cut.guard, ctx.timeout_ms).status != "unsat"]
    return ctx.cut_reasons


def model_of(f: Findings) -> z3.ModelRef:
    assert f.last_model is not None, "a symbolic count is only decided by Z3, with a model"
    return f.last_model


def destroy_count(destroys: list[Call], handle: int) -> int | z3.ArithRef:
    """How many of `destroys` free `handle`: a Python int when every guard
    and argument folds, else a Z3 sum.  An escape frees it when its
    "destroys" flag is set."""
    known = 0
    terms: list[z3.ArithRef] = []
    for d in destroys:
        if not d.args:
            continue
        hit = fold.conj(d.guard, fold.eq(d.args[0], handle))
        if d.flags is not None and hit is not fold.FALSE:
            hit = fold.conj(hit, d.flags[0])
        t = fold.truth(hit)
        if t is None:
            terms.append(z3.If(hit, fold.lit(1), fold.lit(0)))
        elif t:
            known += 1
    if not terms:
        return known
    return z3.Sum(fold.lit(known), *terms)


def not_once(count: int | z3.ArithRef) -> z3.BoolRef:
    if isinstance(count, int):
        return fold.boolean(count != 1)
    return count != 1  # type: ignore[return-value]


def count_in(model: z3.ModelRef, count: z3.ArithRef) -> int:
    return model.eval(count, model_completion=True).as_long()  # type: ignore[attr-defined, no-any-return]


def describe_path(path: dict[str, bool] | dict[str, bool | int]) -> str:
    if not path:
        return "on every path"
    return "when " + ", ".join(
        f"{k.split(':', 1)[-1]}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in path.items())
