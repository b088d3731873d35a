"""`lowering-complete`: nothing of the gpu runtime dialect survives a success."""

from __future__ import annotations

from verify.invariants.common import Findings
from verify.invariants.context import CheckContext
from verify.model.verdicts import CheckResult


def check_lowering_complete(ctx: CheckContext) -> CheckResult:
    f = Findings("lowering-complete", ctx)
    # One violation per (what, op), but every copy is asked until one is
    # reachable: the first copy may sit on a path that never runs.
    shown: set[tuple[str, str | None]] = set()
    for r in ctx.lowered.residue:
        key = (r.what, r.source_op)
        if key in shown:
            continue
        if f.query(r.guard, f"{r.what} left in @{r.func} (from {r.source_op or '?'}) "
                "although the lowering reported success", [r.source_op],
                {"source_op": r.source_op}):
            shown.add(key)
    return f.result()
