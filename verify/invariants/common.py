"""Helpers shared by the checkers: turning a solver answer into a verdict."""

from __future__ import annotations

import z3

from verify import solver
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
        answer = (self.session.check(bad) if self.session is not None
                  else solver.check(bad, self.ctx.timeout_ms))
        if answer.status == "unknown":
            self.unknown.append(f"{detail}: {answer.reason}")
            return False
        if answer.status == "unsat":
            return False
        assert answer.model is not None
        self.last_model = answer.model
        cex: dict[str, object] = {"path": solver.bool_assignment(answer.model, bad)}
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


def describe_path(path: dict[str, bool]) -> str:
    if not path:
        return "on every path"
    return "when " + ", ".join(f"{k.split(':', 1)[-1]}={'true' if v else 'false'}"
                               for k, v in path.items())
