"""Invariant IDs, verdicts and the violation record every checker returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Verdict = Literal["holds", "violated", "unknown", "rejected", "not-applicable"]
VERDICTS: tuple[Verdict, ...] = ("holds", "violated", "unknown", "rejected", "not-applicable")

INVARIANTS: dict[str, str] = {
    "sync-alloc-no-stream": "the code lowered from a synchronous gpu.alloc creates no stream",
    "stream-no-leak": "every stream created is destroyed exactly once on every path "
    "(unless the source leaves that token un-awaited)",
    "stream-no-use-after-destroy": "no stream or event reaches a runtime call after its "
    "destroy; no double destroy",
    "event-no-leak": "every event created is destroyed on every path",
    "host-shared-flag": "the flag passed to the allocation call equals the source's host_shared",
    "async-order": "every happens-before edge of the source holds in every schedule",
    "runtime-contract": "every call respects the chosen runtime profile (cuda, hip, sycl)",
    "lowering-complete": "a lowering that reports success leaves no gpu.* runtime op "
    "and no unresolved cast",
    "lowering-no-crash": "the lowering neither crashes, hangs nor emits IR that fails "
    "verification on a valid program",
    "differential": "the lowered program's observable outcome on the reference runtime "
    "equals the source semantics'",
}


@dataclass
class Violation:
    invariant: str
    detail: str  # one sentence naming the broken rule
    # Branch values ({"f0:%cond0": true}), a schedule, offending op ids...
    counterexample: dict[str, Any] = field(default_factory=dict)
    marked_calls: list[str] = field(default_factory=list)  # lowered ops to mark
    # What running the lowered code said: "confirmed by execution: ...",
    # "not confirmed: why", "found by execution: ..." ("" : not asked).
    confirmation: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CheckResult:
    """The verdict of one invariant on one (program, lowering)."""

    invariant: str
    verdict: Verdict
    violations: list[Violation] = field(default_factory=list)
    reason: str = ""  # why unknown / not-applicable
    coverage: str = ""  # what a "holds" of a testing oracle covered (differential)

    def to_json(self) -> dict[str, Any]:
        out = {
            "invariant": self.invariant,
            "verdict": self.verdict,
            "violations": [v.to_json() for v in self.violations],
            "reason": self.reason,
        }
        if self.coverage:
            out["coverage"] = self.coverage
        return out
