"""Judging one shard of a certificate: a range of the canonical programs on
one (lowering, pipeline).  Runs in the driver, or as a Dask task on a
worker; everything it needs is in its arguments, and it returns records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.to_program import to_program
from gpu_alloc_verify.verify.invariants.options import CAMPAIGN_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import check_batch
from gpu_alloc_verify.verify.model.verdicts import Verdict

Record = dict[str, Any]


@dataclass(frozen=True)
class Target:
    """A lowering and the pipeline it runs (pipeline "" for xDSL lowerings)."""

    lowering: str
    pipeline: str

    @property
    def name(self) -> str:
        return f"{self.lowering} [{self.pipeline}]" if self.pipeline else self.lowering

    def to_json(self) -> dict[str, str]:
        return {"lowering": self.lowering, "pipeline": self.pipeline}


@dataclass(frozen=True)
class Shard:
    target: Target
    start: int  # indices [start, stop) of the bound's canonical programs
    stop: int
    max_ops: int
    spaces: bool

    @property
    def id(self) -> str:
        return f"{self.target.name}#{self.start}"


def judge_shard(shard: Shard, options: CheckOptions | None = None) -> list[Record]:
    """One record per program of the shard: its index, text, status, verdicts,
    the reasons of its unknowns and the root cause of each violation."""
    from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    enum = enumerate_bound(shard.max_ops, shard.spaces)
    programs = [to_program(enum.programs[i]) for i in range(shard.start, shard.stop)]
    lowering = resolve(shard.target.lowering, shard.target.pipeline or DEFAULT_PIPELINE)
    rows = check_batch(programs, [lowering], options or CheckOptions(truth=CAMPAIGN_TRUTH))
    out = []
    for index, program, row in zip(range(shard.start, shard.stop), programs, rows, strict=True):
        j = row[lowering.spec]
        text = program.to_mlir()
        reasons = {str(inv): r.reason or "solver gave up" for inv, r in j.results.items()
                   if r.verdict == Verdict.UNKNOWN}
        out.append({"kind": "certify-program", "target": shard.target.to_json(),
                    "index": index, "ops": len(enum.programs[index]), "program": text,
                    "status": j.status,
                    "verdicts": {str(k): str(v) for k, v in j.verdicts().items()},
                    "reasons": reasons, "causes": _causes(text, j, shard.target)})
    return out


def _causes(text: str, j: Any, target: Target) -> list[dict[str, str]]:
    """Each violation's root cause, as triage names it (its signature slug)."""
    from gpu_alloc_verify.verify.triage.signature import signature_of

    causes = []
    for v in j.violations():
        # The record triage reads (the shape of `api.violation_records`).
        rec = {"invariant": v.invariant, "lowering": j.spec, "program": text,
               "lowered": j.lowered, "detail": v.detail,
               "counterexample": v.counterexample, "marked_calls": v.marked_calls,
               "pipeline": target.pipeline or "gpu-to-llvm"}
        try:
            sig = signature_of(rec, rec["pipeline"])
            slug = sig.slug()
        except Exception as e:  # noqa: BLE001 - a triage gap must not lose the verdict
            slug = f"unbucketed ({type(e).__name__})"
        causes.append({"invariant": str(rec["invariant"]), "cause": slug})
    return causes
