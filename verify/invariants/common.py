"""Helpers shared by the checkers: turning a solver answer into a verdict."""

from __future__ import annotations

import z3

from verify import fold, solver
from verify.extract import Call
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

    def query(self, bad: z3.BoolRef, detail: str, marked: list[str | None],
              extra: dict[str, object] | None = None) -> bool:
        """Record a violation if `bad` is satisfiable; True when it was."""
        if bad is fold.FALSE:  # decided while building it: no solver call
            return False
        answer = (self.session.check(bad) if self.session is not None
                  else solver.check(bad, self.ctx.timeout_ms))
        if answer.status == "unknown":
            self.unknown.append(f"{detail}: {answer.reason}")
            return False
        if answer.status == "unsat":
            return False
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
        if self.unknown:
            return CheckResult(self.invariant, "unknown", reason="; ".join(self.unknown))
        return CheckResult(self.invariant, "holds")


def model_of(f: Findings) -> z3.ModelRef:
    assert f.last_model is not None, "a symbolic count is only decided by Z3, with a model"
    return f.last_model


def destroy_count(destroys: list[Call], handle: int) -> int | z3.ArithRef:
    """How many of `destroys` free `handle`: a Python int when every guard
    and argument folds, else a Z3 sum."""
    known = 0
    terms: list[z3.ArithRef] = []
    for d in destroys:
        if not d.args:
            continue
        hit = fold.conj(d.guard, fold.eq(d.args[0], handle))
        t = fold.truth(hit)
        if t is None:
            terms.append(z3.If(hit, fold.lit(1), fold.lit(0)))
        elif t:
            known += 1
    if not terms:
        return known
    return z3.Sum(fold.lit(known), *terms)


def describe_path(path: dict[str, bool]) -> str:
    if not path:
        return "on every path"
    return "when " + ", ".join(f"{k.split(':', 1)[-1]}={'true' if v else 'false'}"
                               for k, v in path.items())
