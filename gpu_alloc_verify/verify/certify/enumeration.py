"""The canonical programs of a bound, in a fixed order, with their digest.

The order is the depth-first order of `space.programs`, each class at the
place of its first member, so the n-th program of a bound is the same on
every machine: cluster shards and resumed runs name programs by that index.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

from gpu_alloc_verify.verify.certify.canonical import canonical
from gpu_alloc_verify.verify.certify.space import (
    DEFAULT_SPACES,
    KINDS,
    MAX_ARG_BUFFERS,
    MAX_DEPS,
    WITH_SPACES,
    Step,
)
from gpu_alloc_verify.verify.certify.space import programs as raw_programs
from gpu_alloc_verify.verify.certify.to_program import ELEM, KERNEL_SHAPE, SHAPE


@dataclass(frozen=True)
class Enumeration:
    max_ops: int
    spaces: bool  # gpu.alloc in memory space 1 too
    programs: tuple[tuple[Step, ...], ...]  # canonical op sequences, in order
    raw: int  # op sequences before symmetry reduction
    per_size: tuple[tuple[int, int, int], ...]  # (ops, raw, canonical) for 1..max_ops
    digest: str  # sha256 of the canonical forms, in order

    @property
    def removed_by_symmetry(self) -> int:
        return self.raw - len(self.programs)

    def feature_set(self) -> dict[str, object]:
        return {"kinds": KINDS, "max_deps": MAX_DEPS, "argument_buffers": MAX_ARG_BUFFERS,
                "memory_spaces": [0, 1] if self.spaces else [0],
                "buffer_type": f"memref<{'x'.join(map(str, SHAPE))}x{ELEM}>",
                "kernel": KERNEL_SHAPE}


@cache
def enumerate_bound(max_ops: int, spaces: bool = False) -> Enumeration:
    """Every canonical program of 1..`max_ops` ops (cached per process);
    `spaces`: gpu.alloc in memory space 1 too."""
    if max_ops < 1:
        raise ValueError("the bound is at least 1 op")
    seen: dict[object, tuple[Step, ...]] = {}
    raw = 0
    sizes: dict[int, list[int]] = {n: [0, 0] for n in range(1, max_ops + 1)}
    digest = hashlib.sha256()
    for steps in raw_programs(max_ops, WITH_SPACES if spaces else DEFAULT_SPACES):
        raw += 1
        sizes[len(steps)][0] += 1
        key, ordered = canonical(steps)
        if key not in seen:
            seen[key] = ordered
            sizes[len(steps)][1] += 1
            digest.update(repr(key).encode())
            digest.update(b"\n")
    return Enumeration(max_ops, spaces, tuple(seen.values()), raw,
                       tuple((n, r, c) for n, (r, c) in sorted(sizes.items())),
                       digest.hexdigest())
