"""`--junitxml FILE`: a `fuzz` or `check` summary as JUnit XML, shaped as
pytest writes it (testsuites > testsuite > testcase > failure | skipped),
so that CI viewers (GitLab, Jenkins, GitHub test-report actions) show it.

One testcase per (lowering, invariant): classname = the lowering, name =
the invariant.  Each violation (a root cause: one shrunk counterexample per
(lowering, invariant) in `fuzz`, each violation record in `check`) is one
<failure>, message = its id and detail, text = the rendered counterexample
(`reports.explain.render`).  An unknown verdict (nothing violated, nothing
proven) is <skipped> with the reason: a CI viewer shows it as neither passed
nor failed, as exit status 3 means.  Where the same testcase also has a
failure, the unknown reasons go to its <system-out>.  The verdict counts of
each testcase are in its <system-out> too; the run's counts (programs,
verdicts, root causes: `reports.counts`) are the suite's properties.

Nothing checked is never green: a testcase whose verdicts are all rejected
or not-applicable (no holds, nothing violated or unknown) is <skipped>
"nothing checked: <reason>", and so is every testcase without a failure
when the whole run checked nothing (`check` exit 3,
`verify.campaign.nothing_checked`).

Written with xml.etree.ElementTree from the standard library: the JUnit
packages on PyPI (junit-xml) are unmaintained, and the format is small.
"""

from __future__ import annotations

import datetime
import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.counts import run_counts
from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.model.verdicts import Verdict

# Characters XML 1.0 cannot carry (pytest drops them the same way).
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _ILLEGAL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _first_line(text: str, limit: int = 300) -> str:
    lines = text.strip().splitlines()
    return _clean(lines[0][:limit] if lines else "")


def _cases(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(lowering, invariant) pairs in summary order: the tallied ones, then
    any that only a violation or an unknown entry names."""
    pairs: dict[tuple[str, str], None] = {}
    for spec in summary.get("lowerings") or []:
        for inv in (summary.get("by_lowering") or {}).get(spec, {}):
            pairs[(spec, inv)] = None
    for spec, per in (summary.get("by_lowering") or {}).items():
        for inv in per:
            pairs[(spec, inv)] = None
    for rec in [*summary.get("violations", []), *summary.get("unknown", [])]:
        pairs[(rec["lowering"], rec["invariant"])] = None
    return list(pairs)


def build_junit(summary: Mapping[str, Any], suite: str, elapsed: float | None = None,
                nothing_checked: str | None = None,
                case_reasons: Mapping[tuple[str, str], str] | None = None
                ) -> ET.ElementTree[ET.Element]:
    """The JUnit document of one `fuzz` or `check` summary (`--json` shape).
    `nothing_checked`: why the whole run checked nothing; `case_reasons`: why a
    (lowering, invariant) case checked nothing (else said from its counts)."""
    cases = _cases(summary)
    by_lowering = summary.get("by_lowering") or {}
    failed = skipped = 0
    testcases: list[ET.Element] = []
    for spec, inv in cases:
        case = ET.Element("testcase", {"classname": spec, "name": inv, "time": "0.000"})
        violations = [v for v in summary.get("violations", [])
                      if v["lowering"] == spec and v["invariant"] == inv]
        unknown = [u for u in summary.get("unknown", [])
                   if u["lowering"] == spec and u["invariant"] == inv]
        for v in violations:
            message = f"{v.get('id', '')}: {v['detail']}" if v.get("id") else v["detail"]
            failure = ET.SubElement(case, "failure",
                                    {"type": "violation", "message": _first_line(message)})
            failure.text = _clean(render(v))
        reasons = [_reason(u) for u in unknown]
        if violations:
            failed += 1
        elif unknown:
            skipped += 1
            skip = ET.SubElement(case, "skipped", {
                "type": Verdict.UNKNOWN,
                "message": _first_line("unknown: " + "; ".join(reasons))})
            skip.text = _clean("\n".join(reasons) + "\n")
        counts = by_lowering.get(spec, {}).get(inv, {})
        if not violations and not unknown and (nothing_checked or _unchecked(counts)):
            skipped += 1
            why = (case_reasons or {}).get((spec, inv)) or nothing_checked or _counted(counts)
            skip = ET.SubElement(case, "skipped", {
                "type": "nothing-checked", "message": _first_line(f"nothing checked: {why}")})
            skip.text = _clean(why + "\n")
        out = ", ".join(f"{k} {n}" for k, n in counts.items() if n)
        lines = [f"verdicts: {out}"] if out else []
        if violations and unknown:
            lines += ["unknown (not proven either way): " + r for r in reasons]
        if lines:
            ET.SubElement(case, "system-out").text = _clean("\n".join(lines) + "\n")
        testcases.append(case)

    total_time = f"{elapsed or 0.0:.3f}"
    root = ET.Element("testsuites", {"name": "gpu-alloc-verify"})
    attrs = {"name": suite, "errors": "0", "failures": str(failed), "skipped": str(skipped),
             "tests": str(len(testcases)), "time": total_time,
             "timestamp": datetime.datetime.now().isoformat(timespec="seconds"),
             "hostname": socket.gethostname()}
    ts = ET.SubElement(root, "testsuite", attrs)
    props = {k: summary[k] for k in ("schema_version", "seed", "campaign")
             if summary.get(k) is not None}
    props |= _count_properties(summary)
    if props:
        pe = ET.SubElement(ts, "properties")
        for name, value in props.items():
            ET.SubElement(pe, "property", {"name": name, "value": _clean(str(value))})
    ts.extend(testcases)
    root.set("tests", attrs["tests"])
    root.set("failures", attrs["failures"])
    root.set("errors", "0")
    root.set("time", total_time)
    ET.indent(root)
    return ET.ElementTree(root)


def _count_properties(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The run's counts as the terminal and --json say them (`reports.counts`):
    programs, verdicts by kind, root causes (when triaged), the baseline's own."""
    counts = summary.get("counts")
    if not isinstance(counts, Mapping):
        counts = run_counts(summary).to_json()
    out: dict[str, Any] = {"programs": counts.get("programs")}
    out |= {f"verdicts.{v}": n for v, n in (counts.get("verdicts") or {}).items()}
    if counts.get("root_causes") is not None:
        out["root_causes"] = counts["root_causes"]
    base = counts.get("baseline")
    if isinstance(base, Mapping):
        out["baseline"] = base.get("lowering")
        out |= {f"baseline.shared.{v}": n for v, n in (base.get("shared") or {}).items()}
    return out


def _unchecked(counts: Mapping[str, int]) -> bool:
    """Only rejected / not-applicable verdicts: the case proved nothing."""
    return bool(counts) and not any(counts.get(v) for v in (Verdict.HOLDS, Verdict.VIOLATED,
                                                             Verdict.UNKNOWN))


def _counted(counts: Mapping[str, int]) -> str:
    return "every verdict " + " or ".join(
        f"{v} ({n})" for v, n in counts.items()
        if n and v in (Verdict.REJECTED, Verdict.NOT_APPLICABLE))


def _reason(entry: Mapping[str, Any]) -> str:
    reason = _first_line(str(entry.get("reason") or "solver gave up"), 1000)
    count = entry.get("count")
    return f"{reason} ({count} program(s))" if count else reason


def write_junit(path: str | Path, summary: Mapping[str, Any], suite: str,
                elapsed: float | None = None, nothing_checked: str | None = None,
                case_reasons: Mapping[tuple[str, str], str] | None = None) -> None:
    """Write the JUnit XML of `summary` to `path` (its folder created)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    build_junit(summary, suite, elapsed, nothing_checked, case_reasons).write(
        target, encoding="utf-8", xml_declaration=True)
