"""Counterexamples in the style of Alive2: the rule broken in one sentence,
the source, the lowered code with the offending calls marked, and the path
(branch values) or schedule that shows it."""

from __future__ import annotations

import re
from typing import Any

from verify.invariants.common import describe_path
from verify.verdicts import INVARIANTS

_LOC = re.compile(r'loc\("([^"]*)"\)')


def mark_lowered(lowered: str, marked: list[str]) -> list[str]:
    """Lowered lines; those whose location is a marked source op get '>>'."""
    wanted = set(marked)
    out = []
    for line in lowered.rstrip().splitlines():
        m = _LOC.search(line)
        flag = ">> " if m and m.group(1) in wanted and '"llvm.func"' not in line else "   "
        out.append(flag + line)
    return out


def render(record: dict[str, Any], max_lowered: int = 200) -> str:
    """A violation record (as in `--json` output) as text for people."""
    inv = record["invariant"]
    cex = record.get("counterexample") or {}
    lines = [f"ERROR: {inv} violated on {record['lowering']}",
             f"  rule: {INVARIANTS.get(inv, inv)}",
             f"  {record['detail']}", "", "Source:"]
    lines += ["  " + ln for ln in record["program"].rstrip().splitlines()]
    lowered = record.get("lowered") or ""
    if lowered:
        marked = mark_lowered(lowered, record.get("marked_calls") or [])
        relevant = [ln for ln in marked if "llvm.call" in ln or ln.startswith(">>")
                    or "scf." in ln or "cf." in ln or "gpu." in ln]
        lines += ["", "Lowered (runtime calls; >> marks the offending source ops):"]
        lines += ["  " + ln for ln in relevant[:max_lowered]]
    if "path" in cex:
        lines += ["", f"Path: {describe_path(cex['path'])}"]
    schedule = cex.get("schedule")
    if isinstance(schedule, list) and schedule:
        lines += ["Schedule (what the device ran, in time order):"]
        lines += ["  " + str(s) for s in schedule]
    elif isinstance(schedule, int) and not isinstance(schedule, bool):  # differential's seed
        lines += [f"Schedule: seed {schedule}"]
    return "\n".join(lines) + "\n"
