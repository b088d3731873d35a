"""`check FILE --results R`: a user's file recorded as a one-program campaign.

The records have the shapes a `fuzz` campaign writes (campaign-start, one
program record with each lowering's verdicts and reasons, campaign-end), so
`triage R` re-judges the file with the same lowering and pipeline and puts
it under the same root causes as the programs the campaigns found; the
file's path is kept beside its text.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.results import ResultsWriter
from gpu_alloc_verify.verify.model.verdicts import Verdict


def _pipeline(lowering: Lowering) -> str:
    return str(getattr(lowering, "pipeline", None) or DEFAULT_PIPELINE)


def program_result(j: Judgement, pipeline: str) -> dict[str, Any]:
    """One lowering's entry of a program record, as a campaign writes it."""
    entry: dict[str, Any] = {"status": j.status, "verdicts": j.verdicts(), "pipeline": pipeline}
    reasons = {inv: r.reason or "solver gave up" for inv, r in j.results.items()
               if r.verdict == Verdict.UNKNOWN}
    if reasons:
        entry["reasons"] = reasons
    if j.status in ("crash", "timeout", "invalid-ir") and j.diagnostics:
        entry["detail"] = j.diagnostics.strip()[:500]
    return entry


def record_check(results: str, path: str, written: str, row: dict[str, Judgement],
                 lowerings: Sequence[Lowering], options: CheckOptions) -> str:
    """Append the check of `path` to `results`; the campaign id it got."""
    campaign = f"k{int(time.time())}-{os.getpid()}"
    by_spec = {lw.spec: lw for lw in lowerings}
    pipelines = {spec: _pipeline(by_spec[spec]) if spec in by_spec else DEFAULT_PIPELINE
                 for spec in row}
    found = [[spec, v.invariant] for spec, j in row.items() for v in j.violations()]
    writer = ResultsWriter(results)
    try:
        writer.write({"kind": "campaign-start", "campaign": campaign, "command": "check",
                      "file": path, "lowerings": list(row), "seed": None,
                      "runtime": options.runtime,
                      "pipeline": next(iter(pipelines.values()), DEFAULT_PIPELINE),
                      "config": {"max_examples": 1}, "invariants": list(options.invariants),
                      "solver_timeout_ms": options.timeout_ms, "shrink": False})
        writer.write({"kind": "program", "campaign": campaign, "id": f"{campaign}-p0",
                      "program": written, "file": path, "shard": 0, "draw": 0,
                      "features": [],
                      "results": {spec: program_result(j, pipelines[spec])
                                  for spec, j in row.items()},
                      "found": found})
        writer.write({"kind": "campaign-end", "campaign": campaign, "stopped_by": "max-examples",
                      "elapsed": 0.0, "coverage": {}})
    finally:
        writer.close()
    return campaign
