"""Is a knock-on candidate really one?  Decided by reduction.

A bucket whose every program also leaves an op unconverted looks like a
consequence of that op; but most generated programs leave some op
unconverted, so a real defect (the stream a token aliases, destroyed
twice) would hide under a limitation.  Reducing the smallest example while
its violation stays (`verify.triage.reduce`) drops every op the violation
does not need: if the reduced program shows it with no op left unconverted,
the bucket is a defect of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.reduce import reduce_text, signature_predicate
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for, rejudge
from gpu_alloc_verify.verify.triage.signature import signature_of

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.triage.buckets import Bucket

COMPLETE = InvariantId.LOWERING_COMPLETE
# A handful of rounds: enough to drop the ops that do not matter, cheap
# enough to run on every candidate of a campaign.
ROUNDS = 12


@dataclass(frozen=True)
class Reduction:
    text: str  # the reduced program, still showing the bucket's violation
    alone: bool  # and leaving no op unconverted: not a knock-on


def reduce_bucket(b: Bucket) -> Reduction | None:
    """`b`'s example reduced while its violation keeps its signature, or None
    when it cannot be judged again (a tool that is gone) or loses it."""
    ex = b.example or {}
    text, spec = ex.get("program"), ex.get("lowering")
    if not isinstance(text, str) or not isinstance(spec, str):
        return None
    settings = Settings(spec, str(ex.get("pipeline") or DEFAULT_PIPELINE))
    # The rule that saw it (a double destroy is named for use-after-destroy
    # even when the leak rule reported it).
    seen_by = str(ex.get("invariant") or b.signature.invariant)
    try:
        lowering = lowering_for(settings)
        keeps = signature_predicate(settings, seen_by, b.key, lowering)
        reduced = reduce_text(text, keeps, ROUNDS)
        found = rejudge([reduced], ["reduced"], settings,
                        [[seen_by, COMPLETE]], lowering)[0]
    except Exception:  # noqa: BLE001 - a tool that is gone leaves the bucket as it was
        return None
    if not found:
        return None
    kept = any(v["invariant"] == seen_by
               and signature_of(v, settings.pipeline).key == b.key for v in found)
    if not kept:
        return None
    return Reduction(reduced, not any(v["invariant"] == COMPLETE for v in found))


def standalone_reduction(b: Bucket) -> str | None:
    """The reduced program of `b` that shows its violation with no op left
    unconverted, or None (keep it a knock-on)."""
    r = reduce_bucket(b)
    return r.text if r is not None and r.alone else None
