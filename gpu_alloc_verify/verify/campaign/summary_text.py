"""The terminal summary of a fuzz campaign, short enough for one screen.

Order: the verdict table, the root causes (triage buckets, the lowering's
defects), the shrunk counterexamples, the unknown verdicts grouped by reason,
testing-oracle coverage, and the verdict line last (scripts read it there).
Every count is of programs, verdicts or root causes (`reports.counts`); with
--baseline, of what the lowering adds, the baseline's own on one line apart.
Long lines are wrapped, never cut.  Near-duplicate unknown reasons (the same
sentence about op3 and op7) are grouped by `normalize_reason`; the full
reasons stay in --json, JUnit, the HTML report and `--verbose`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.reports.counts import RunCounts, added_by_lowering, plural

ROOT_CAUSES_SHOWN = 4
UNKNOWN_GROUPS_SHOWN = 2  # each may take three lines: reasons are wrapped, never cut

# What differs between near-duplicate reasons: op ids, source locations,
# SSA names, numbers.
_NORMALIZE = (
    (re.compile(r"\b[\w.-]*:\d+:\d+\b"), "LOC"),
    (re.compile(r"\bop\d+\b"), "opN"),
    (re.compile(r"%[\w.#]+"), "%v"),
    (re.compile(r"\b\d+\b"), "N"),
)


def normalize_reason(reason: Any) -> str:
    """The first line of an unknown reason with op ids, locations, SSA names
    and numbers replaced, so near-duplicates share one text."""
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        return "solver gave up"
    # A compound reason ("A; B; C") is grouped by its first clause.
    line = text.splitlines()[0].split("; ")[0]
    for pattern, repl in _NORMALIZE:
        line = pattern.sub(repl, line)
    return " ".join(line.split())


def wrap(text: str, width: int, indent: int = 0) -> list[str]:
    """`text` in `width` columns, broken at spaces onto lines indented by
    `indent`: never cut (a cut makes two lines read the same) and never broken
    inside a word (a word longer than the line keeps its own line whole)."""
    return textwrap.wrap(text, max(20, width), subsequent_indent=" " * indent,
                         break_long_words=False, break_on_hyphens=False) or [text]


@dataclass
class UnknownGroup:
    lowering: str
    invariant: str
    reason: str  # normalized
    count: int  # programs
    variants: int  # distinct raw reasons grouped


def unknown_groups(entries: Sequence[dict[str, Any]]) -> list[UnknownGroup]:
    """Unknown entries (lowering, invariant, reason, count) grouped by
    normalized reason, most programs first."""
    groups: dict[tuple[str, str, str], UnknownGroup] = {}
    for u in entries:
        lowering, inv = str(u.get("lowering", "?")), str(u.get("invariant", "?"))
        reason = normalize_reason(u.get("reason"))
        g = groups.setdefault((lowering, inv, reason), UnknownGroup(lowering, inv, reason, 0, 0))
        g.count += max(1, int(u.get("count") or 1))
        g.variants += 1
    return sorted(groups.values(), key=lambda g: (-g.count, g.invariant, g.reason))


def headline(summary: dict[str, Any], elapsed: float | None, drawn: int | None,
             max_examples: int | None) -> str:
    """How many programs were judged and why that is not --max-examples."""
    n = int(summary.get("examples") or 0)
    resumed = int(summary.get("resumed") or 0)
    why: list[str] = []
    if drawn:
        dupes = max(0, drawn - (n - resumed))
        why.append(f"{drawn} drawn" + (f", {dupes} already drawn" if dupes else ""))
    if resumed:
        why.append(f"{resumed} resumed")
    if summary.get("stopped_by") == "time-budget":
        why.append("time budget spent")
    elif max_examples and drawn is not None and 0 < drawn < max_examples:
        why.append("Hypothesis ran out of new programs")
    lowerings = ", ".join(summary.get("lowerings") or [])
    return (f"{plural(n, 'program')} judged" + (f" ({'; '.join(why)})" if why else "")
            + f" on {lowerings}" + (f", {elapsed:.1f}s" if elapsed is not None else ""))


def table_lines(summary: dict[str, Any]) -> list[str]:
    """Verdicts per lowering and invariant; with a baseline, violated and
    unknown count only those worse than the baseline's."""
    base = summary.get("baseline")
    against = f", verdicts against baseline {base['lowering']}" if base else ""
    lines: list[str] = []
    for spec, per in added_by_lowering(summary).items():
        lines.append(f"{spec}{against}")
        for inv, counts in per.items():
            shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
            lines.append(f"  {inv:28} {shown}")
    return lines


def baseline_lines(counts: RunCounts, width: int) -> list[str]:
    """The one line apart: what the baseline already does on these programs."""
    if counts.baseline is None:
        return []
    return wrap(f"BASELINE {counts.baseline} does the same, not counted: "
                f"{counts.shared_text()} verdicts", width, 2)


_KIND_RANK = {"defect": 0, "limitation": 1, "knock-on": 2}


def ordered_buckets(triage: Any) -> list[Any]:
    """Defects first (triage ranks by frequency within each kind), then
    limitations of the lowering; a triage without kinds keeps its order."""
    return sorted(triage.buckets, key=lambda b: _KIND_RANK.get(getattr(b, "kind", ""), 0))


def root_cause_lines(triage: Any, results: str | None, width: int,
                     analysis_defects: Sequence[dict[str, Any]],
                     baseline: str | None = None) -> list[str]:
    """The lowering's defects (triage buckets) first, then defects of the analysis."""
    lines: list[str] = []
    if triage is not None and triage.buckets:
        added = f", added over baseline {baseline}" if baseline else ""
        lines += wrap(f"ROOT CAUSES: {len(triage.buckets)}{added}, in "
                      f"{plural(triage.programs, 'program')}", width, 2)
        shown = ordered_buckets(triage)[:ROOT_CAUSES_SHOWN]
        slugs = [b.signature.slug() for b in shown]
        for k, b in enumerate(shown, 1):
            # NEW compares with the file's previous campaign: with none, every one would be.
            new = " NEW since the previous campaign" if b.new and triage.previous else ""
            kind = getattr(b, "kind", "")
            # One mechanism under several pipelines (fuzz's portfolio): say which.
            where = f" [{b.signature.family}]" if slugs.count(slugs[k - 1]) > 1 else ""
            lines += wrap(f"{k:>3}. {kind + ': ' if kind else ''}{slugs[k - 1]}{where}  "
                          f"{b.count_text()}{new}", width, 7)
        more = len(triage.buckets) - ROOT_CAUSES_SHOWN
        if more > 0:
            lines.append(f"     ... {more} more: gpu-alloc-verify triage {results}")
    for d in analysis_defects:
        lines += wrap(f"ANALYSIS DEFECT ({d.get('kind')}) {d.get('invariant')} on "
                      f"{d.get('lowering')}: the analysis said {d.get('analysis')}; "
                      f"execution: {d.get('execution')}", width, 2)
    return lines


def counterexample_lines(violations: Sequence[dict[str, Any]], results: str | None,
                         width: int) -> list[str]:
    if not violations:
        return []
    first = violations[0].get("id") or "ID"
    lines = wrap(f"SHRUNK: {plural(len(violations), 'program')}, the smallest found for each "
                 "violated lowering and invariant", width, 2)
    # A command is never cut: a cut one would not run.
    lines.append(f"  in full: --verbose, the report, or gpu-alloc-verify replay {results} "
                 f"--id {first}" if results else "  in full: --verbose")
    return lines


def unknown_lines(entries: Sequence[dict[str, Any]], width: int, many_lowerings: bool
                  ) -> list[str]:
    groups = unknown_groups(entries)
    if not groups:
        return []
    total = sum(g.count for g in groups)
    lines = wrap(f"UNKNOWN: {plural(total, 'verdict')}, by reason (--verbose: each reason "
                 "in full)", width, 2)
    for g in groups[:UNKNOWN_GROUPS_SHOWN]:
        on = f" on {g.lowering}" if many_lowerings else ""
        lines += wrap(f"{g.count:>5} {g.invariant}{on}: {g.reason}", width, 8)
    more = len(groups) - UNKNOWN_GROUPS_SHOWN
    if more > 0:
        rest = sum(g.count for g in groups[UNKNOWN_GROUPS_SHOWN:])
        lines.append(f"      ... {more} more reason(s), {plural(rest, 'verdict')}")
    return lines


def coverage_line(entries: Sequence[dict[str, Any]], width: int) -> list[str]:
    if not entries:
        return []
    by_kind: dict[str, list[str]] = {}
    for e in entries:
        by_kind.setdefault(str(e["coverage"]), []).append(f"{e['invariant']} {e['count']}")
    parts = "; ".join(f"{kind}: {', '.join(items)}" for kind, items in by_kind.items())
    return wrap(f"COVERAGE of testing-oracle holds (programs): {parts}", width, 2)


def verdict_line(counts: RunCounts) -> str:
    """The last line: programs and verdicts (scripts read it there)."""
    against = f" (over baseline {counts.baseline})" if counts.baseline else ""
    return f"{plural(counts.programs, 'program')}: {counts.verdict_text()}{against}"
