"""The one way a run is counted: programs, verdicts, root causes.

A program is one generated (or checked) MLIR text; a verdict is one program
x lowering x invariant (holds, violated, unknown, rejected, not-applicable);
a root cause is one triage bucket (violations with one signature).  The
terminal summary, the `--json` summary's `counts`, JUnit's properties and the
HTML report all say these, in these words, from `run_counts`.

With a baseline (`fuzz --baseline SPEC`), `verdicts` holds what the lowering
adds: its violated and unknown verdicts that are worse than the baseline's on
the same program; `shared` holds those the baseline shows too, said apart and
counted nowhere else.  Holds and the rest are counted as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.model.baseline import BAD
from gpu_alloc_verify.verify.model.verdicts import VERDICTS, Verdict


def plural(n: int, word: str) -> str:
    """`1 program`, `2 programs`."""
    return f"{n} {word}" + ("" if n == 1 else "s")


@dataclass
class RunCounts:
    programs: int
    verdicts: dict[str, int]  # verdict -> count (with a baseline: violated/unknown added)
    root_causes: int | None = None  # None: not triaged (no results file, or no violation)
    baseline: str | None = None
    shared: dict[str, int] = field(default_factory=dict)  # the baseline's too

    def verdict_text(self) -> str:
        """`3 violated, 2 unknown, 40 holds` (violated and unknown always said)."""
        shown = (*BAD, Verdict.HOLDS)
        return ", ".join(f"{self.verdicts.get(v, 0)} {v}" for v in shown)

    def shared_text(self) -> str:
        return ", ".join(f"{self.shared.get(v, 0)} {v}" for v in BAD)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"programs": self.programs, "verdicts": dict(self.verdicts),
                               "root_causes": self.root_causes}
        if self.baseline is not None:
            out["baseline"] = {"lowering": self.baseline, "shared": dict(self.shared)}
        return out


def added_by_lowering(summary: Mapping[str, Any]) -> dict[str, dict[str, dict[str, int]]]:
    """The verdict table to show: per lowering and invariant, every verdict
    count, violated and unknown reduced to those added over the baseline."""
    base = summary.get("baseline")
    table: dict[str, dict[str, dict[str, int]]] = {
        spec: {inv: dict(c) for inv, c in per.items()}
        for spec, per in (summary.get("by_lowering") or {}).items()}
    if not isinstance(base, Mapping):
        return table
    for spec, per in table.items():
        for inv, c in per.items():
            added = ((base.get("added") or {}).get(spec) or {}).get(inv) or {}
            for v in BAD:
                c[v] = int(added.get(v, 0))
    return table


def run_counts(summary: Mapping[str, Any], triage: Any = None) -> RunCounts:
    """The counts of a `fuzz`/`check` summary (`--json` shape); `triage`, a
    `verify.triage.buckets.Triage` of its results, gives the root causes."""
    totals = dict.fromkeys(VERDICTS, 0)
    for per in added_by_lowering(summary).values():
        for c in per.values():
            for v in VERDICTS:
                totals[v] += int(c.get(v, 0))
    base = summary.get("baseline")
    shared = dict.fromkeys(BAD, 0)
    spec = None
    if isinstance(base, Mapping):
        spec = str(base.get("lowering"))
        for per in (base.get("shared") or {}).values():
            for c in per.values():
                for v in BAD:
                    shared[v] += int(c.get(v, 0))
    causes = (len(triage.buckets) if triage is not None
              else 0 if not totals[Verdict.VIOLATED] else None)
    return RunCounts(int(summary.get("examples") or 0), {str(k): n for k, n in totals.items()},
                     causes, spec, {str(k): n for k, n in shared.items()} if spec else {})
