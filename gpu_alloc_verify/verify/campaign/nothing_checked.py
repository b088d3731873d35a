"""Nothing checked is never green.

A `check` in which every lowering rejected the file or could not take it
(every verdict rejected or not-applicable: a legalization failure, a pass
the version lacks, a file its tool cannot read) proved nothing: it exits 3
with "nothing checked: <reason>", and its JUnit cases are skipped, not
passed.  `lowering-no-crash` holding on a rejection does not count: the
lowering declined the file, so no invariant about its output was checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_alloc_verify.verify.invariants.pipeline import Judgement
from gpu_alloc_verify.verify.model.verdicts import Verdict

UNCHECKED = (Verdict.REJECTED, Verdict.NOT_APPLICABLE)


def lowering_unchecked(j: Judgement) -> str | None:
    """Why lowering `j` checked nothing on the file, or None when it did."""
    if j.status != "rejected" and any(r.verdict not in UNCHECKED for r in j.results.values()):
        return None
    if any(r.verdict in (Verdict.VIOLATED, Verdict.UNKNOWN) for r in j.results.values()):
        return None
    reasons = [(r.verdict, r.reason) for r in j.results.values()
               if r.verdict in UNCHECKED and r.reason]
    verdict, reason = reasons[0] if reasons else (Verdict.REJECTED, _first_line(j.diagnostics))
    return _name(j.spec, verdict, _first_line(reason))


def nothing_checked(row: Mapping[str, Judgement]) -> str | None:
    """Why no lowering checked anything ("; "-joined), or None."""
    why = [lowering_unchecked(j) for j in row.values()]
    if not why or any(w is None for w in why):
        return None
    return "; ".join(w for w in why if w)


def case_reasons(row: Mapping[str, Judgement]) -> dict[tuple[str, str], str]:
    """(lowering, invariant) -> why that case checked nothing, for each
    rejected or not-applicable verdict (the JUnit skip message)."""
    return {(spec, inv): _name(spec, r.verdict, _first_line(r.reason or j.diagnostics))
            for spec, j in row.items() for inv, r in j.results.items()
            if r.verdict in UNCHECKED}


def _name(spec: str, verdict: Verdict, reason: str) -> str:
    if verdict == Verdict.REJECTED:
        return f"{spec} rejected the file" + (f": {reason}" if reason else "")
    if reason.startswith(spec):  # "mlir-opt-16 has no pass X" names it already
        return reason
    return f"{spec}: {reason or 'not applicable'}"


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0][:200] if lines else ""
