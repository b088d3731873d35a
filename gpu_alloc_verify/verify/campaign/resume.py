"""Picking an unfinished campaign back up from its results file (`fuzz --resume`).

A campaign killed or interrupted before its campaign-end record is continued
under the same campaign id: the settings come from its campaign-start record
(so the seeded search regenerates the same programs), every program already
recorded is skipped by its text, and the tallies, coverage and violations
found so far are rebuilt from its program records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.invariants.pipeline import Tally
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.results import read_records, unfinished_campaign
from gpu_alloc_verify.verify.model.verdicts import VERDICTS, InvariantId, Verdict, known_invariant


@dataclass
class ResumeState:
    campaign: str
    start: dict[str, Any]  # its campaign-start record
    texts: set[str] = field(default_factory=set)  # programs already recorded
    programs: list[dict[str, Any]] = field(default_factory=list)
    # Violation records written before the kill (it came during their writing).
    violations: list[dict[str, Any]] = field(default_factory=list)
    resumes: int = 0  # earlier campaign-resume records
    # The command-line options of its latest start or resume ({} in a file
    # written before they were recorded): what `fuzz --resume` restores.
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def recorded(self) -> int:
        return len(self.programs)

    def setting(self, key: str, default: Any = None) -> Any:
        return self.start.get(key, default)

    def gen_config(self) -> GenConfig:
        config = dict(self.start.get("config") or {})
        known = {f.name for f in fields(GenConfig)}
        kw = {k: v for k, v in config.items() if k in known}
        if isinstance(kw.get("kinds"), list):
            kw["kinds"] = tuple(kw["kinds"])
        return GenConfig(**kw)

    def max_examples(self, default: int) -> int:
        value = (self.start.get("config") or {}).get("max_examples", default)
        return value if isinstance(value, int) and value > 0 else default


def load_resume(path: str | Path) -> ResumeState:
    """The latest unfinished campaign of a results file; UsageError if none."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{path}: no such results file to resume; run without --resume "
                         "to start a campaign")
    records = read_records(p)
    cid = unfinished_campaign(records)
    if cid is None:
        raise UsageError(f"{path}: no unfinished campaign to resume (each has its "
                         "campaign-end); run without --resume to start a new one")
    state = ResumeState(cid, {})
    for rec in records:
        if rec.get("campaign") != cid:
            continue
        kind = rec.get("kind")
        if kind == "campaign-start" and not state.start:
            state.start = rec
            state.options = _options(rec, state.options)
        elif kind == "campaign-resume":
            state.resumes += 1
            state.options = _options(rec, state.options)
        elif kind == "violation":
            state.violations.append(rec)
        elif kind == "program" and isinstance(rec.get("program"), str):
            if rec["program"] in state.texts:
                continue  # recorded twice (never by this writer): count once
            state.texts.add(rec["program"])
            state.programs.append(rec)
    return state


def _options(rec: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    options = rec.get("options")
    return dict(options) if isinstance(options, dict) else before


def found_keys(rec: dict[str, Any]) -> list[tuple[str, InvariantId]]:
    """The (lowering, invariant) violations a program record counts; an
    invariant ID this catalogue lacks is left out (nothing can judge it again)."""
    if isinstance(rec.get("found"), list):  # written by this version (after --baseline)
        pairs = [(str(k[0]), str(k[1])) for k in rec["found"] if isinstance(k, list)
                 and len(k) == 2]
    else:
        pairs = [(spec, inv) for spec, res in (rec.get("results") or {}).items()
                 for inv, verdict in ((res or {}).get("verdicts") or {}).items()
                 if verdict == Verdict.VIOLATED]
    return [(spec, inv) for spec, text in pairs if (inv := known_invariant(text)) is not None]


def add_to_tally(tally: Tally, rec: dict[str, Any]) -> None:
    """Count a recorded program's verdicts as `Tally.add` counts a fresh row."""
    tally.examples += 1
    for spec, res in (rec.get("results") or {}).items():
        for inv, verdict in ((res or {}).get("verdicts") or {}).items():
            if verdict not in VERDICTS:
                continue
            tally.by_invariant.setdefault(inv, dict.fromkeys(VERDICTS, 0))[verdict] += 1
            per = tally.by_lowering.setdefault(spec, {})
            per.setdefault(inv, dict.fromkeys(VERDICTS, 0))[verdict] += 1
