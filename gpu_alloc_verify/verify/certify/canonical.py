"""Canonical forms: one program per class of programs equal up to renaming
of values and reordering of independent ops.

Two ops are independent when they share no value (token or buffer) and
both are asynchronous: a synchronous op blocks the host, so it is ordered
against every other op.  Values are renamed by first appearance.  The
canonical form of a program is the least renamed op sequence among the
orders its dependences allow; two programs are one class exactly when their
canonical forms are equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from gpu_alloc_verify.verify.certify.space import Step

Key = tuple[tuple[object, ...], ...]


def _values(step: Step) -> set[int]:
    return set(step.deps) | set(step.buffers) | set(step.defines)


def _ordered(steps: Sequence[Step]) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, whose order is fixed."""
    pairs = []
    for j, b in enumerate(steps):
        for i in range(j):
            a = steps[i]
            if not (a.is_async and b.is_async) or _values(a) & _values(b):
                pairs.append((i, j))
    return pairs


def _renamed(steps: Sequence[Step]) -> Key:
    names: dict[int, int] = {}

    def name(v: int) -> int:
        return names.setdefault(v, len(names))

    out = []
    for s in steps:
        out.append((s.kind, s.variant, tuple(name(v) for v in s.deps),
                    tuple(name(v) for v in s.buffers), tuple(name(v) for v in s.defines)))
    return tuple(out)


def canonical(steps: Sequence[Step]) -> tuple[Key, tuple[Step, ...]]:
    """The canonical key of `steps` and the op order that gives it."""
    fixed = _ordered(steps)
    best: tuple[Key, tuple[Step, ...]] | None = None
    for order in permutations(range(len(steps))):
        place = {op: k for k, op in enumerate(order)}
        if any(place[i] > place[j] for i, j in fixed):
            continue
        seq = tuple(steps[k] for k in order)
        key = _renamed(seq)
        if best is None or key < best[0]:
            best = (key, seq)
    assert best is not None  # the program's own order is always allowed
    return best
