"""What a lowering adds over a baseline (`fuzz --baseline SPEC`).

Each program is judged on the lowering under test and on the baseline (the
released `mlir-opt`, say).  A verdict of the lowering is *added* when it is
worse than the baseline's verdict on the same program and invariant (holds
or not-applicable < unknown < violated), and *shared* when the baseline's is
as bad: the baseline already does that, so it is said on one line apart and
counted neither in the verdict table, the root causes nor the exit status.

The comparison is read from program records (their `baseline` entry), so a
fresh campaign, a resumed one and a cluster's driver count it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.model.verdicts import Verdict

# Only these can be added or shared: the others prove something or nothing.
BAD = (Verdict.VIOLATED, Verdict.UNKNOWN)
_RANK: dict[str, int] = {Verdict.UNKNOWN: 1, Verdict.VIOLATED: 2}

Counts = dict[str, dict[str, dict[str, int]]]  # lowering -> invariant -> verdict -> n


def worse(verdict: str, base: str | None) -> bool:
    """Whether `verdict` is worse than the baseline's `base` (None: not judged)."""
    return _RANK.get(verdict, 0) > _RANK.get(base or "", 0)


def baseline_entry(spec: str, verdicts: Mapping[Any, str]) -> dict[str, Any]:
    """The `baseline` entry of a program record: the baseline's verdicts."""
    return {"lowering": spec, "verdicts": {str(i): str(v) for i, v in verdicts.items()}}


def base_violated(rec: dict[str, Any]) -> set[str]:
    """Invariants the baseline violates on a recorded program (empty: none, or
    no baseline)."""
    entry = rec.get("baseline")
    verdicts = entry.get("verdicts") if isinstance(entry, dict) else None
    if not isinstance(verdicts, dict):
        return set()
    return {str(i) for i, v in verdicts.items() if v == Verdict.VIOLATED}


@dataclass
class BaselineTally:
    """Verdicts of the lowerings under test, split into added and shared."""

    lowering: str
    added: Counts = field(default_factory=dict)
    shared: Counts = field(default_factory=dict)
    programs: int = 0

    def add(self, rec: dict[str, Any]) -> None:
        """Count one program record (its results and its baseline entry)."""
        entry = rec.get("baseline")
        if not isinstance(entry, dict):
            return
        base = entry.get("verdicts") or {}
        self.programs += 1
        for spec, res in (rec.get("results") or {}).items():
            for inv, verdict in ((res or {}).get("verdicts") or {}).items():
                if verdict not in BAD:
                    continue
                side = self.added if worse(verdict, base.get(inv)) else self.shared
                per = side.setdefault(str(spec), {}).setdefault(str(inv), {})
                per[verdict] = per.get(verdict, 0) + 1

    def total(self, side: str, verdict: str) -> int:
        counts: Counts = getattr(self, side)
        return sum(c.get(verdict, 0) for per in counts.values() for c in per.values())

    def to_json(self) -> dict[str, Any]:
        return {"lowering": self.lowering, "programs": self.programs,
                "added": self.added, "shared": self.shared}
