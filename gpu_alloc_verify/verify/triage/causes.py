"""From buckets to root causes: each gets a kind, a severity, the pass at
fault and its upstream status; knock-ons are listed under their parent;
buckets whose minimal programs are the same text are one, and so are
defects that match one upstream cause; the order is defects by severity,
then limitations.

A bucket is a knock-on when every program that shows it also leaves an op
unconverted (a differential or leak violation there is what the unconverted
op causes, not a second bug) and its example, reduced while the violation
stays, still leaves one (`verify.triage.knockon`); its parent is the
unconverted-op cause it appeared with most often.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.ir.text import strip_name_locs
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.kinds import (
    DEFECT,
    KIND_ORDER,
    KNOCK_ON,
    UNKNOWN,
    base_kind,
    pass_at_fault,
)
from gpu_alloc_verify.verify.triage.knockon import reduce_bucket
from gpu_alloc_verify.verify.triage.upstream import cause_id, upstream_of

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.triage.buckets import Bucket



def program_text(b: Bucket) -> str:
    """A bucket's minimal program (its reduced one when triage reduced it),
    without locations or trailing spaces."""
    example = b.example or {}
    text = strip_name_locs(str(b.reduced or example.get("program") or ""))
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def rank(b: Bucket) -> tuple[int, int, int, str]:
    return (KIND_ORDER.get(b.kind, 9), b.severity, -b.count, b.key)


def organize(buckets: list[Bucket], reduce: bool = False) -> list[Bucket]:
    """The root causes in report order, knock-ons and duplicates nested.
    `reduce`: reduce each defect's example (runs the lowering): the reduced
    program is its reproducer, and a knock-on candidate whose reduced program
    leaves no op unconverted is a defect of its own."""
    by_sig = {b.signature: b for b in buckets}
    for b in buckets:
        sig = b.signature
        b.kind, b.severity = base_kind(sig.invariant, sig.focus)
        b.pass_name = pass_at_fault(sig.invariant, sig.focus, sig.family)
        parents = [(n, p) for p, n in b.unconverted.items() if p in by_sig]
        follows = sig.invariant != InvariantId.LOWERING_COMPLETE or sig.focus == UNKNOWN
        alone = False
        if reduce and b.kind == DEFECT:
            found = reduce_bucket(b)
            b.reduced = found.text if found is not None else None
            alone = found is not None and found.alone
        # An op left unconverted only because its operand's producer was is
        # that producer's knock-on, always: its own pattern would take it.
        producer = sig.invariant == InvariantId.LOWERING_COMPLETE and sig.focus == UNKNOWN
        if b.kind != KNOCK_ON and follows and b.seen and parents and not alone \
                and (producer or b.seen_unconverted == b.seen):
            b.kind = KNOCK_ON
            # A precondition of its own before a knock-on unconverted op.
            b.parent = by_sig[max(parents, key=lambda np: (np[1].focus != UNKNOWN, np[0],
                                                           np[1].key))[1]].key
        b.upstream = upstream_of(sig, b.kind, b.pass_name)
    final = _merge_same_program(buckets)
    _merge_same_cause(buckets, final)
    top = [b for b in buckets if final[b.key] is b and b.kind != KNOCK_ON]
    for b in buckets:
        if final[b.key] is b and b.kind == KNOCK_ON and b.parent is not None:
            parent = final[b.parent]
            b.parent = parent.key
            (parent.knock_ons if parent is not b else top).append(b)
    for b in top:
        b.knock_ons.sort(key=rank)
    return sorted(top, key=rank)


def _merge_same_cause(buckets: list[Bucket], final: dict[str, Bucket]) -> None:
    """Defects of one lowering family that match one upstream cause
    (`upstream_status.json`) are one root cause: the structural and the
    execution view of a token taken for an event, say, are one bug."""
    groups: dict[tuple[str, str], list[Bucket]] = {}
    for b in buckets:
        cid = cause_id(b.signature, b.kind, b.pass_name)
        if final[b.key] is b and b.kind == DEFECT and cid is not None:
            groups.setdefault((b.signature.family, cid), []).append(b)
    for group in groups.values():
        lead, *rest = sorted(group, key=rank)
        for b in rest:
            lead.merged += [b, *b.merged]
            b.merged = []
            lead.confirmed = lead.confirmed or b.confirmed
            for key, where in final.items():
                if where is b:
                    final[key] = lead


def _merge_same_program(buckets: list[Bucket]) -> dict[str, Bucket]:
    """Bucket key -> the bucket it lives in: buckets of one lowering family
    whose minimal programs are the same text are one cause, kept under the
    best ranked of them."""
    groups: dict[tuple[str, str], list[Bucket]] = {}
    final: dict[str, Bucket] = {}
    for b in buckets:  # per pipeline: the catalogue joins pipelines itself
        if b.kind == KNOCK_ON:  # listed under its parent, whatever its program
            final[b.key] = b
            continue
        text = program_text(b)
        groups.setdefault((b.signature.family, text or b.key), []).append(b)
    for group in groups.values():
        lead, *rest = sorted(group, key=rank)
        final[lead.key] = lead
        for b in rest:
            lead.merged.append(b)
            lead.confirmed = lead.confirmed or b.confirmed
            final[b.key] = lead
    return final
