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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.reduce import (
    reduce_text,
    reductions_out_of_time,
    signature_predicate,
)
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for, rejudge
from gpu_alloc_verify.verify.triage.signature import signature_of

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.triage.buckets import Bucket

COMPLETE = InvariantId.LOWERING_COMPLETE
# A handful of rounds: enough to drop the ops that do not matter, cheap
# enough to run on every candidate of a campaign.
ROUNDS = 12
EXAMPLES_TRIED = 3  # examples reduced before a bucket is judged a knock-on
Record = dict[str, Any]


@dataclass(frozen=True)
class Reduction:
    text: str  # the reduced program, still showing the bucket's violation
    alone: bool  # and leaving no op unconverted: not a knock-on


def reduce_bucket(b: Bucket) -> Reduction | None:
    """`b`'s example reduced while its violation keeps its signature, or None
    when it cannot be judged again (a tool that is gone) or loses it.

    Unrelated leftovers are reduced away before the bucket is judged a
    knock-on: a reduction that still leaves an op unconverted is reduced
    again demanding that none is left, and then the next examples are tried,
    so a defect is never filed under an op it does not need.  Every mlir-opt
    version the bucket was seen on must keep showing it, so no reduction
    leaves a value dead that one version erases."""
    best: Reduction | None = None
    for k, ex in enumerate(b.examples[:EXAMPLES_TRIED]):
        if reductions_out_of_time():
            break  # the time budget is spent: the bucket stays as judged
        found = _reduce(b, ex, alone=False)
        if found is not None and not found.alone:
            found = _reduce(b, dict(ex, program=found.text), alone=True) or found
        if found is not None and found.alone:
            return found
        best = best or found
        if k == 0 and found is None:
            break  # the tool is gone or the first example does not show it
    return best


def _reduce(b: Bucket, ex: Record, alone: bool) -> Reduction | None:
    """One example reduced (`alone`: demanding no op left unconverted)."""
    text, spec = ex.get("program"), ex.get("lowering")
    if not isinstance(text, str) or not isinstance(spec, str):
        return None
    pipeline = str(ex.get("pipeline") or DEFAULT_PIPELINE)
    # The rule that saw it (a double destroy is named for use-after-destroy
    # even when the leak rule reported it).
    seen_by = str(ex.get("invariant") or b.signature.invariant)
    specs = [spec] + [s for s in b.lowerings if s != spec and s.startswith("mlir-opt")
                      and spec.startswith("mlir-opt")]
    try:
        checks = [_predicate(Settings(s, pipeline), seen_by, b.key, alone) for s in specs]

        def keeps(texts: Sequence[str]) -> list[bool]:
            verdicts = [check(texts) for check in checks]
            return [all(v[i] for v in verdicts) for i in range(len(texts))]

        reduced = reduce_text(text, keeps, ROUNDS)
        if not keeps([reduced])[0]:
            return None
        settings = Settings(spec, pipeline)
        found = rejudge([reduced], ["reduced"], settings, [[seen_by, COMPLETE]],
                        lowering_for(settings))[0]
    except Exception:  # noqa: BLE001 - a tool that is gone leaves the bucket as it was
        return None
    if not found:
        return None
    return Reduction(reduced, not any(v["invariant"] == COMPLETE for v in found))


def _predicate(settings: Settings, seen_by: str, key: str, alone: bool
               ) -> Callable[[Sequence[str]], list[bool]]:
    """True for texts that show signature `key` on `settings`' lowering (and,
    `alone`, leave no op unconverted)."""
    lowering = lowering_for(settings)
    if not alone:
        return signature_predicate(settings, seen_by, key, lowering)

    def check(texts: Sequence[str]) -> list[bool]:
        judged = rejudge(texts, [f"candidate-{k}" for k in range(len(texts))], settings,
                         [[seen_by, COMPLETE]] * len(texts), lowering)
        return [bool(found) and not any(v["invariant"] == COMPLETE for v in found or [])
                and any(signature_of(v, settings.pipeline).key == key for v in found or [])
                for found in judged]

    return check


def standalone_reduction(b: Bucket) -> str | None:
    """The reduced program of `b` that shows its violation with no op left
    unconverted, or None (keep it a knock-on)."""
    r = reduce_bucket(b)
    return r.text if r is not None and r.alone else None
