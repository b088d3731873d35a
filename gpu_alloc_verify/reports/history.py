"""Campaigns read back from a results file (append-only JSONL).

One file may hold several campaigns (a history).  Reading is tolerant: a
line that is not a JSON object (a truncated last line, a stray message) is
skipped and counted; a campaign killed before its `campaign-end` line gets
its counts recomputed from its `program` lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.model.verdicts import VERDICTS, Verdict

Record = dict[str, Any]
Counts = dict[str, int]  # verdict -> count
UNNAMED = "(unnamed)"
_PROGRAM_KEYS = ("id", "features", "results")


def _has_reasons(rec: Record) -> bool:
    results = rec.get("results")
    return isinstance(results, dict) and any(
        isinstance(r, dict) and r.get("reasons") for r in results.values())


def _zero_counts() -> Counts:
    return {v: 0 for v in VERDICTS}


def _merge_counts(into: Counts, counts: Any) -> None:
    if not isinstance(counts, dict):
        return
    for verdict, n in counts.items():
        if isinstance(n, int) and not isinstance(n, bool):
            into[str(verdict)] = into.get(str(verdict), 0) + n


@dataclass
class Campaign:
    """Everything one campaign wrote, in file order."""

    id: str
    start: Record | None = None
    end: Record | None = None
    programs: list[Record] = field(default_factory=list)
    violation_records: list[Record] = field(default_factory=list)
    # Filled on first use, once the file has been read.
    _summary: Record | None = field(default=None, repr=False, compare=False)

    @property
    def complete(self) -> bool:
        return self.end is not None

    @property
    def time(self) -> float | None:
        for rec in (self.start, self.end):
            t = rec.get("time") if rec else None
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                return float(t)
        return None

    @property
    def duration(self) -> float | None:
        if not (self.start and self.end):
            return None
        t0, t1 = self.start.get("time"), self.end.get("time")
        if isinstance(t0, (int, float)) and isinstance(t1, (int, float)):
            return float(t1) - float(t0)
        return None

    def setting(self, key: str) -> Any:
        return (self.start or {}).get(key)

    @property
    def lowerings(self) -> list[str]:
        """Lowerings in the order the campaign named them, then any others seen."""
        seen: list[str] = []
        declared = self.setting("lowerings")
        summary_lowerings = self._end_summary().get("lowerings")
        sources: list[Iterable[Any]] = [
            declared if isinstance(declared, list) else [],
            summary_lowerings if isinstance(summary_lowerings, list) else [],
        ]
        by_lowering = self._end_summary().get("by_lowering")
        if isinstance(by_lowering, dict):
            sources.append(by_lowering.keys())
        for prog in self.programs:
            results = prog.get("results")
            if isinstance(results, dict):
                sources.append(results.keys())
        for source in sources:
            for spec in source:
                if isinstance(spec, str) and spec not in seen:
                    seen.append(spec)
        return seen

    def _end_summary(self) -> Record:
        summary = (self.end or {}).get("summary")
        return summary if isinstance(summary, dict) else {}

    def summary(self) -> Record:
        """The `--json` summary: the end line's, or recomputed from program lines.

        Parts missing from the end line (a campaign killed mid-way has none)
        are recomputed, so a report never shows less than the file holds.
        """
        if self._summary is None:
            self._summary = self._build_summary()
        return self._summary

    def _build_summary(self) -> Record:
        end = self._end_summary()
        by_lowering = end.get("by_lowering")
        if not isinstance(by_lowering, dict) or (not by_lowering and self.programs):
            by_lowering = self._computed_by_lowering()
        by_invariant = end.get("by_invariant")
        if not isinstance(by_invariant, dict) or (not by_invariant and by_lowering):
            by_invariant = _sum_invariants(by_lowering)
        examples = end.get("examples")
        if not isinstance(examples, int) or isinstance(examples, bool):
            examples = len(self.programs)
        violations = end.get("violations")
        return {
            "examples": examples,
            "lowerings": self.lowerings,
            "by_invariant": by_invariant,
            "by_lowering": by_lowering,
            "violations": violations if isinstance(violations, list) else [],
        }

    def _computed_by_lowering(self) -> dict[str, dict[str, Counts]]:
        by_lowering: dict[str, dict[str, Counts]] = {}
        for prog in self.programs:
            results = prog.get("results")
            if not isinstance(results, dict):
                continue
            for spec, result in results.items():
                verdicts = result.get("verdicts") if isinstance(result, dict) else None
                if not isinstance(verdicts, dict):
                    continue
                row = by_lowering.setdefault(str(spec), {})
                for inv, verdict in verdicts.items():
                    cell = row.setdefault(str(inv), _zero_counts())
                    cell[str(verdict)] = cell.get(str(verdict), 0) + 1
        return by_lowering

    def statuses(self) -> dict[str, Counts]:
        """Lowering -> {ok, rejected, crash, timeout} counts over program lines."""
        out: dict[str, Counts] = {}
        for prog in self.programs:
            results = prog.get("results")
            if not isinstance(results, dict):
                continue
            for spec, result in results.items():
                status = result.get("status") if isinstance(result, dict) else None
                if isinstance(status, str):
                    row = out.setdefault(str(spec), {})
                    row[status] = row.get(status, 0) + 1
        return out

    def coverage(self) -> dict[str, int]:
        """Generator feature -> number of programs that reached it."""
        cov = (self.end or {}).get("coverage")
        if isinstance(cov, dict) and (cov or not self.programs):
            return {str(k): int(v) for k, v in cov.items()
                    if isinstance(v, (int, float)) and 0 <= v < 2**63}
        counts: dict[str, int] = {}
        for prog in self.programs:
            features = prog.get("features")
            if isinstance(features, list):
                for feat in features:
                    counts[str(feat)] = counts.get(str(feat), 0) + 1
        return counts

    def violations(self) -> list[Record]:
        """Violation lines; if the campaign wrote none, the end summary's list."""
        if self.violation_records:
            return list(self.violation_records)
        out = []
        for k, v in enumerate(self.summary()["violations"]):
            if isinstance(v, dict):
                rec = dict(v)
                rec.setdefault("id", f"{self.id}-v{k}")
                rec.setdefault("pipeline", self.setting("pipeline"))
                out.append(rec)
        return out

    def violated_count(self) -> int:
        return sum(c.get(Verdict.VIOLATED, 0) for c in self.summary()["by_invariant"].values()
                   if isinstance(c, dict))


def _sum_invariants(by_lowering: dict[str, Any]) -> dict[str, Counts]:
    out: dict[str, Counts] = {}
    for row in by_lowering.values():
        if isinstance(row, dict):
            for inv, counts in row.items():
                _merge_counts(out.setdefault(str(inv), _zero_counts()), counts)
    return out


@dataclass
class History:
    campaigns: list[Campaign]
    skipped_lines: int = 0

    @property
    def latest(self) -> Campaign | None:
        return self.campaigns[-1] if self.campaigns else None

    def get(self, campaign_id: str) -> Campaign | None:
        return next((c for c in self.campaigns if c.id == campaign_id), None)


def parse_lines(lines: Iterable[str]) -> History:
    campaigns: dict[str, Campaign] = {}
    current: Campaign | None = None
    skipped = 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("kind"), str):
            skipped += 1
            continue
        cid = rec.get("campaign")
        if isinstance(cid, str) and cid:
            camp = campaigns.setdefault(cid, Campaign(cid))
        elif current is not None:
            camp = current
        else:
            camp = campaigns.setdefault(UNNAMED, Campaign(UNNAMED))
        kind = rec["kind"]
        if kind == "campaign-start":
            camp.start = camp.start or rec
        elif kind == "campaign-end":
            camp.end = rec
        elif kind == "program":  # text only where a verdict is unknown: memory stays flat
            kept = {k: rec[k] for k in _PROGRAM_KEYS if k in rec}
            if _has_reasons(rec):  # the report links each unknown reason to a program
                kept["program"] = rec.get("program")
            camp.programs.append(kept)
        elif kind == "violation":
            camp.violation_records.append(rec)
        else:
            continue  # a kind from a newer writer: ignore, do not fail
        current = camp
    return History(list(campaigns.values()), skipped)


def load_history(path: str | Path) -> History:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_lines(f)


def load_results(path: str | Path) -> list[Campaign]:
    """Campaigns of a results file, oldest first; malformed lines are skipped."""
    return load_history(path).campaigns
