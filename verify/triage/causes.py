"""From buckets to root causes: each gets a kind, a severity, the pass at
fault and its upstream status; knock-ons are listed under their parent;
buckets whose minimal programs are the same text are one; the order is
defects by severity, then limitations.

A bucket is a knock-on when every program that shows it also leaves an op
unconverted (a differential or leak violation there is what the unconverted
op causes, not a second bug) and its example, reduced while the violation
stays, still leaves one (`verify.triage.knockon`); its parent is the
unconverted-op cause it appeared with most often.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.triage.kinds import (
    KIND_ORDER,
    KNOCK_ON,
    UNKNOWN,
    base_kind,
    pass_at_fault,
)
from gpu_alloc_verify.verify.triage.knockon import standalone_reduction
from gpu_alloc_verify.verify.triage.upstream import upstream_of

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.triage.buckets import Bucket

_LOC = re.compile(r'\s*loc\("[^"]*"\)')


def program_text(b: Bucket) -> str:
    """A bucket's minimal program, without locations or trailing spaces."""
    example = b.example or {}
    text = _LOC.sub("", str(example.get("program") or ""))
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def rank(b: Bucket) -> tuple[int, int, int, str]:
    return (KIND_ORDER.get(b.kind, 9), b.severity, -b.count, b.key)


def _stands_alone(b: Bucket, reduce: bool) -> bool:
    """Its reduced example shows it with no op left unconverted: a defect."""
    if not reduce or b.signature.invariant == "lowering-complete":
        return False
    b.reduced = standalone_reduction(b)
    return b.reduced is not None


def organize(buckets: list[Bucket], reduce: bool = False) -> list[Bucket]:
    """The root causes in report order, knock-ons and duplicates nested.
    `reduce`: decide knock-ons by reducing their examples (runs the lowering;
    off until the reducer stops accepting candidates that lost their body)."""
    by_sig = {b.signature: b for b in buckets}
    for b in buckets:
        sig = b.signature
        b.kind, b.severity = base_kind(sig.invariant, sig.focus)
        b.pass_name = pass_at_fault(sig.invariant, sig.focus, sig.family)
        parents = [(n, p) for p, n in b.unconverted.items() if p in by_sig]
        follows = sig.invariant != "lowering-complete" or sig.focus == UNKNOWN
        if b.kind != KNOCK_ON and follows and b.seen and b.seen_unconverted == b.seen \
                and parents and not _stands_alone(b, reduce):
            b.kind = KNOCK_ON
            # A precondition of its own before a knock-on unconverted op.
            b.parent = by_sig[max(parents, key=lambda np: (np[1].focus != UNKNOWN, np[0],
                                                           np[1].key))[1]].key
        b.upstream = upstream_of(sig, b.kind, b.pass_name)
    final = _merge_same_program(buckets)
    top = [b for b in buckets if final[b.key] is b and b.kind != KNOCK_ON]
    for b in buckets:
        if final[b.key] is b and b.kind == KNOCK_ON and b.parent is not None:
            parent = final[b.parent]
            b.parent = parent.key
            (parent.knock_ons if parent is not b else top).append(b)
    for b in top:
        b.knock_ons.sort(key=rank)
    return sorted(top, key=rank)


def _merge_same_program(buckets: list[Bucket]) -> dict[str, Bucket]:
    """Bucket key -> the bucket it lives in: buckets of one lowering family
    whose minimal programs are the same text are one cause, kept under the
    best ranked of them."""
    groups: dict[tuple[str, str], list[Bucket]] = {}
    for b in buckets:  # per pipeline: the catalogue joins pipelines itself
        text = program_text(b)
        groups.setdefault((b.signature.family, text or b.key), []).append(b)
    final: dict[str, Bucket] = {}
    for group in groups.values():
        lead, *rest = sorted(group, key=rank)
        final[lead.key] = lead
        for b in rest:
            lead.merged.append(b)
            lead.confirmed = lead.confirmed or b.confirmed
            final[b.key] = lead
    return final
