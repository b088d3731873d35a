"""Invariant IDs, verdicts and the violation record every checker returns."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class InvariantId(enum.StrEnum):
    """An invariant of the catalogue; a member is its ID string.

    StrEnum members are `str`: JSON, CLI flags, corpus headers, JUnit and
    HTML print the ID itself, and a member equals (and hashes as) its ID.
    """

    SYNC_ALLOC_NO_STREAM = "sync-alloc-no-stream"
    STREAM_NO_LEAK = "stream-no-leak"
    STREAM_NO_USE_AFTER_DESTROY = "stream-no-use-after-destroy"
    EVENT_NO_LEAK = "event-no-leak"
    HOST_SHARED_FLAG = "host-shared-flag"
    ASYNC_ORDER = "async-order"
    RUNTIME_CONTRACT = "runtime-contract"
    LOWERING_COMPLETE = "lowering-complete"
    LOWERING_NO_CRASH = "lowering-no-crash"
    DIFFERENTIAL = "differential"


class Verdict(enum.StrEnum):
    """The verdict of one invariant on one (program, lowering); a member is its word."""

    HOLDS = "holds"
    VIOLATED = "violated"
    UNKNOWN = "unknown"
    REJECTED = "rejected"
    NOT_APPLICABLE = "not-applicable"


VERDICTS: tuple[Verdict, ...] = tuple(Verdict)

_RULES: dict[InvariantId, str] = {
    InvariantId.SYNC_ALLOC_NO_STREAM: "the code lowered from a synchronous gpu.alloc creates "
    "no stream",
    InvariantId.STREAM_NO_LEAK: "every stream created is destroyed exactly once on every path "
    "(unless the source leaves that token un-awaited)",
    InvariantId.STREAM_NO_USE_AFTER_DESTROY: "no stream or event reaches a runtime call after "
    "its destroy; no double destroy",
    InvariantId.EVENT_NO_LEAK: "every event created is destroyed on every path",
    InvariantId.HOST_SHARED_FLAG: "the flag passed to the allocation call equals the source's "
    "host_shared",
    InvariantId.ASYNC_ORDER: "every happens-before edge of the source holds in every schedule",
    InvariantId.RUNTIME_CONTRACT: "every call respects the chosen runtime profile "
    "(cuda, hip, sycl)",
    InvariantId.LOWERING_COMPLETE: "a lowering that reports success leaves no gpu.* runtime op "
    "and no unresolved cast",
    InvariantId.LOWERING_NO_CRASH: "the lowering neither crashes, hangs nor emits IR that fails "
    "verification on a valid program",
    InvariantId.DIFFERENTIAL: "the lowered program's observable outcome on the reference "
    "runtime equals the source semantics'",
}
# The rule of every invariant, in the catalogue's (the enum's) order; a
# member without a rule is a KeyError at import.
INVARIANTS: dict[InvariantId, str] = {i: _RULES[i] for i in InvariantId}


def known_invariant(text: str) -> InvariantId | None:
    """The invariant whose ID is `text` (an ID read back from a JSON record),
    None when the catalogue has no such ID."""
    try:
        return InvariantId(text)
    except ValueError:
        return None


def rule_of(invariant: str) -> str | None:
    """The rule of the invariant with ID `invariant` (a member, or an ID read
    back from a record), None when the catalogue has no such ID."""
    known = known_invariant(invariant)
    return INVARIANTS[known] if known is not None else None


@dataclass
class Violation:
    invariant: InvariantId
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

    invariant: InvariantId
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
