"""Re-checking a results file's violations (`gpu-alloc-verify replay`).

Each violation is judged again under the settings of the campaign that
found it: the lowering and invariant of the record, and the runtime profile,
pass pipeline and solver timeout the record carries or, for records written
before they carried them, its campaign-start record gives.  So a violation
found with `--runtime sycl` or a custom `--pipeline` is replayed with them,
not with the command line's defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants, check_batch
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.results import read_records
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict

Record = dict[str, Any]


@dataclass(frozen=True)
class ReplaySettings:
    """What a violation is judged under, as the campaign that found it had it."""

    lowering: str
    invariant: InvariantId
    runtime: str = "cuda"
    pipeline: str = DEFAULT_PIPELINE
    solver_timeout_ms: int = DEFAULT_TIMEOUT_MS

    def options(self) -> CheckOptions:
        """What the violation's invariant is judged again with."""
        return CheckOptions((self.invariant,), self.runtime, self.solver_timeout_ms)


def load_violations(path: str | Path, only_id: str | None = None
                    ) -> list[tuple[Record, ReplaySettings]]:
    """Violation records of `path` (or the one with `only_id`), each with its settings."""
    records = _read(path)
    starts: dict[str, Record] = {}
    for rec in records:
        cid = rec.get("campaign")
        if rec.get("kind") == "campaign-start" and isinstance(cid, str):
            starts.setdefault(cid, rec)
    chosen = [r for r in records if r.get("kind") == "violation"
              and (only_id is None or r.get("id") == only_id)]
    if not chosen:
        raise UsageError(f"{path}: no violation record"
                         + (f" with id {only_id}" if only_id else ""))
    return [(r, settings_of(r, starts.get(str(r.get("campaign")), {}))) for r in chosen]


def _read(path: str | Path) -> list[Record]:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"results file '{path}' does not exist; give the results.jsonl "
                         "a fuzz campaign wrote (--results FILE or --report DIR)")
    if not p.is_file():
        raise UsageError(f"results file '{path}' is not a file; give a results.jsonl")
    try:
        return read_records(p)
    except OSError as e:
        raise UsageError(f"cannot read results file '{path}': {e.strerror or e}") from e


def settings_of(record: Record, start: Record) -> ReplaySettings:
    """The record's own settings, else its campaign-start's, else the defaults."""
    for key in ("lowering", "invariant", "program"):
        if not isinstance(record.get(key), str):
            raise UsageError(f"violation record {record.get('id', '?')} has no {key}")
    invariant = record["invariant"]
    if invariant not in active_invariants():
        raise UsageError(f"violation record {record.get('id', '?')} names invariant "
                         f"'{invariant}', which this harness does not check")

    def pick(key: str, default: Any) -> Any:
        value = record.get(key)
        return value if value is not None else start.get(key, default)

    timeout = pick("solver_timeout_ms", DEFAULT_TIMEOUT_MS)
    return ReplaySettings(record["lowering"], InvariantId(invariant), str(pick("runtime", "cuda")),
                          str(pick("pipeline", DEFAULT_PIPELINE) or DEFAULT_PIPELINE),
                          timeout if isinstance(timeout, int) and timeout > 0
                          else DEFAULT_TIMEOUT_MS)


def replay_one(record: Record, settings: ReplaySettings, lowering: Lowering) -> Record:
    """Judge the record's program again; the verdict and reason of its invariant."""
    from gpu_alloc_verify.verify.model.errors import SourceParseError
    from gpu_alloc_verify.verify.source.to_program import program_from_text
    from gpu_alloc_verify.verify.source.user_file import SourceModule, from_text

    name = str(record.get("id", "record"))
    program: Program | SourceModule
    try:
        program = program_from_text(record["program"], name)
    except SourceParseError:
        # Outside the model the reader rebuilds (kernels, say): judge the
        # text as written, as `check` does.
        program = from_text(record["program"], name, lowering.reading_tool())
    judgement = check_batch([program], [lowering], settings.options())[0][lowering.spec]
    result = judgement.results.get(settings.invariant)
    # What this run found, in the shape of a summary's violations (`fuzz` and
    # `check --json`), so `replay` prints the counterexample as `check` does.
    found = [{"id": record.get("id"), "invariant": v.invariant, "lowering": settings.lowering,
              "program": record["program"], "lowered": judgement.lowered,
              "detail": v.detail, "counterexample": v.counterexample,
              "marked_calls": v.marked_calls, "confirmation": v.confirmation}
             for v in (result.violations if result else [])]
    return {"id": record.get("id"), "invariant": settings.invariant,
            "lowering": settings.lowering, "runtime": settings.runtime,
            "pipeline": settings.pipeline,
            "verdict": result.verdict if result else Verdict.UNKNOWN,
            "reason": (result.reason if result else "not judged") or "",
            "violations": found}


def replay(path: str | Path, only_id: str | None,
           check: Callable[[Lowering], None]) -> list[Record]:
    """Every chosen violation of `path`, replayed; `check` vets each new lowering
    (say, that its tool accepts the pipeline) before it is used."""
    lowerings: dict[tuple[str, str], Lowering] = {}
    out = []
    for record, settings in load_violations(path, only_id):
        key = (settings.lowering, settings.pipeline)
        if key not in lowerings:
            lowerings[key] = resolve(settings.lowering, settings.pipeline)
            check(lowerings[key])
        out.append(replay_one(record, settings, lowerings[key]))
    return out
