"""`lowering-complete`: nothing of the gpu runtime dialect survives a success.

A leftover op is a fact of the module (`verify.extract.leftovers` scans all
of it), not of the paths the extractor explored: the verdict depends on no
path condition, loop bound or cut.  A leftover in code that never runs still
makes the module untranslatable to LLVM IR, so it counts too.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

INVARIANT = InvariantId.LOWERING_COMPLETE


def check_lowering_complete(ctx: CheckContext) -> CheckResult:
    violations: list[Violation] = []
    shown: set[tuple[str, str | None]] = set()  # one violation per (what, source op)
    for r in ctx.lowered.residue:
        key = (r.what, r.source_op)
        if key in shown:
            continue
        shown.add(key)
        place = f"@{r.func}" if r.func else "the module"
        violations.append(Violation(
            INVARIANT, f"{r.what} left in {place} (from {r.source_op or '?'}) although the "
            "lowering reported success",
            {"path": {}, **Roles(source_op=r.source_op, left=r.op).entries()},
            [r.source_op] if r.source_op else []))
    if violations:
        return CheckResult(INVARIANT, Verdict.VIOLATED, violations)
    return CheckResult(INVARIANT, Verdict.HOLDS)
