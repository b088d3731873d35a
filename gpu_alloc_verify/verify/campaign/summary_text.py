"""The terminal summary of a fuzz campaign, short enough for one screen.

Order: the verdict table, the root causes (triage buckets, the lowering's
defects), the shrunk counterexamples, the unknown verdicts grouped by reason,
testing-oracle coverage, one paragraph saying what each count means, and the
verdict line last (scripts read it there).  Near-duplicate unknown reasons
(the same sentence about op3 and op7) are grouped by `normalize_reason`; the
full reasons stay in --json, JUnit, the HTML report and `--verbose`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.model.verdicts import Verdict

ROOT_CAUSES_SHOWN = 4
UNKNOWN_GROUPS_SHOWN = 4
ELLIPSIS = "\u2026"

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


def cut(text: str, width: int) -> str:
    """`text` in `width` columns, cut at a word boundary and marked with an ellipsis."""
    if len(text) <= width:
        return text
    head = text[:max(1, width - 1)]
    space = head.rfind(" ")
    if space > width // 3:  # else one long token: cut it rather than lose the line
        head = head[:space]
    return head.rstrip(" ,;:") + ELLIPSIS


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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def headline(summary: dict[str, Any], elapsed: float | None, drawn: int | None,
             max_examples: int | None) -> str:
    """How many programs were judged and why that is not --max-examples."""
    n = int(summary.get("examples") or 0)
    resumed = int(summary.get("resumed") or 0)
    why: list[str] = []
    if drawn:
        dupes = max(0, drawn - (n - resumed))
        why.append(f"{drawn} drawn" + (f", {dupes} duplicates" if dupes else ""))
    if resumed:
        why.append(f"{resumed} resumed")
    if summary.get("stopped_by") == "time-budget":
        why.append("time budget spent")
    elif max_examples and drawn is not None and 0 < drawn < max_examples:
        why.append("Hypothesis ran out of new programs")
    lowerings = ", ".join(summary.get("lowerings") or [])
    return (f"{_plural(n, 'program')} judged" + (f" ({'; '.join(why)})" if why else "")
            + f" on {lowerings}" + (f", {elapsed:.1f}s" if elapsed is not None else ""))


def table_lines(summary: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for spec, per in summary["by_lowering"].items():
        lines.append(f"{spec}")
        for inv, counts in per.items():
            shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
            lines.append(f"  {inv:28} {shown}")
    return lines


_KIND_RANK = {"defect": 0, "limitation": 1, "knock-on": 2}


def ordered_buckets(triage: Any) -> list[Any]:
    """Defects first (triage ranks by frequency within each kind), then
    limitations of the lowering; a triage without kinds keeps its order."""
    return sorted(triage.buckets, key=lambda b: _KIND_RANK.get(getattr(b, "kind", ""), 0))


def root_cause_lines(triage: Any, results: str | None, width: int,
                     analysis_defects: Sequence[dict[str, Any]]) -> list[str]:
    """The lowering's defects (triage buckets) first, then defects of the analysis."""
    lines: list[str] = []
    if triage is not None and triage.buckets:
        lines.append(cut(f"ROOT CAUSES: {len(triage.buckets)} ({triage.violations} violations in "
                         f"{triage.programs} programs, bucketed by signature)", width))
        for k, b in enumerate(ordered_buckets(triage)[:ROOT_CAUSES_SHOWN], 1):
            new = " NEW" if b.new else ""
            kind = getattr(b, "kind", "")
            lines.append(cut(f"{k:>3}. {kind + ': ' if kind else ''}{b.signature.slug()}  "
                             f"{b.count_text()}{new}", width))
        more = len(triage.buckets) - ROOT_CAUSES_SHOWN
        if more > 0:
            lines.append(f"     ... {more} more: gpu-alloc-verify triage {results}")
    for d in analysis_defects:
        lines.append(cut(f"ANALYSIS DEFECT ({d.get('kind')}) {d.get('invariant')} on "
                         f"{d.get('lowering')}: the analysis said {d.get('analysis')}; "
                         f"execution: {d.get('execution')}", width))
    return lines


def counterexample_lines(violations: Sequence[dict[str, Any]], results: str | None,
                         width: int) -> list[str]:
    if not violations:
        return []
    first = violations[0].get("id") or "ID"
    lines = [cut(f"COUNTEREXAMPLES: {len(violations)} shrunk, one per violated lowering x "
                 "invariant", width)]
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
    lines = [cut(f"UNKNOWN: {total} verdicts ({len(entries)} reasons, {len(groups)} groups; "
                 "--verbose: each)", width)]
    for g in groups[:UNKNOWN_GROUPS_SHOWN]:
        on = f" on {g.lowering}" if many_lowerings else ""
        lines.append(cut(f"{g.count:>5} {g.invariant}{on}: {g.reason}", width))
    more = len(groups) - UNKNOWN_GROUPS_SHOWN
    if more > 0:
        rest = sum(g.count for g in groups[UNKNOWN_GROUPS_SHOWN:])
        lines.append(f"      ... {more} more group(s), {rest} verdict(s)")
    return lines


def coverage_line(entries: Sequence[dict[str, Any]], width: int) -> list[str]:
    if not entries:
        return []
    parts = ", ".join(f"{e['invariant']} {e['coverage']} {e['count']}" for e in entries)
    return [cut(f"COVERAGE of testing-oracle holds (programs): {parts}", width)]


def vocabulary(summary: dict[str, Any], triage: Any, width: int,
               drawn: int | None = None) -> list[str]:
    """What each count means, said once."""
    violated = sum(int(c.get(Verdict.VIOLATED) or 0) for c in summary["by_invariant"].values())
    n = int(summary.get("examples") or 0) - int(summary.get("resumed") or 0)
    dupes = " Duplicates: texts drawn again, judged once." if drawn and drawn > n else ""
    causes = (f"; {len(triage.buckets)} root causes: all {triage.violations} violations "
              "bucketed by signature" if triage is not None else "")
    text = (f"Terms: a verdict is a program x lowering x invariant ({violated} violated); "
            f"{len(summary['violations'])} counterexamples: one per lowering x invariant "
            f"violated (the progress line's 'violations'){causes}.{dupes}")
    return textwrap.wrap(text, width)
