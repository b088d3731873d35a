"""Canonical forms: one program per class of programs equal up to renaming
of values.

Values are renamed by first appearance; two programs are one class exactly
when their renamed op sequences are equal.

Op order is part of the program, even between async ops that share no
token or buffer.  Dataflow alone would let such ops swap, but a pipeline
may read the order: `gpu-async-region` threads one token through every
async op of a block in program order (each op gets the token of the op
before it as a further dependency, and a host `gpu.wait` ends the chain),
so the two orders reach `gpu-to-llvm` with other dependency lists, and
upstream 19 leaves an op unconverted (or rejects the program) in one order
and not the other.  Merging them, as this module once did, checked one
order and certified both: 308 of the 967 classes it merged at up to 3 ops
behave differently on mlir-opt-19 with `gpu-async-region` (docs/certify.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc_verify.verify.certify.space import Step

Key = tuple[tuple[object, ...], ...]


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
    """The canonical key of `steps` and the op sequence it names (`steps`
    itself: the order is kept)."""
    return _renamed(steps), tuple(steps)
