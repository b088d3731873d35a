"""Argument values a source function is run on, within a budget: every
assignment of its i1 arguments with the default size, then sizes and
integers 0, 1, one past the analysis's unroll bound and, for integer (not
index) arguments, the boundaries -1, the signed maximum and minimum of the
width, each with the all-false and all-true assignments.

The size reaches a run only through a buffer argument's dynamic dimension
(`machine.bind`): a function without one gets the default size only, so
that an input differing in nothing the run reads is not run again (the
interpreters are deterministic: it would give the same outcome)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Attribute

from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE

BUDGET = 16  # inputs per function


@dataclass(frozen=True)
class Input:
    scalars: dict[int, int | float]  # by argument position
    size: int  # every dynamic dimension of a buffer argument

    def show(self, names: list[str]) -> str:
        shown = [f"{names[k]}={v}" for k, v in sorted(self.scalars.items())]
        return "{" + ", ".join([*shown, f"dynamic sizes={self.size}"]) + "}"


def inputs(types: list[Attribute], kinds: list[str], budget: int = BUDGET) -> list[Input]:
    from gpu_alloc_verify.verify.extract.calls import DEFAULT_LOOP_BOUND

    bools = [k for k, kind in enumerate(kinds) if kind == "i1"]
    ints = [k for k, kind in enumerate(kinds) if kind == "int"]
    floats = {k: float(DEFAULT_SIZE) for k, kind in enumerate(kinds) if kind == "float"}
    rounds: list[tuple[int, int, bool]] = [  # (value, size, boundary: integers only)
        (DEFAULT_SIZE, DEFAULT_SIZE, False), (0, 0, False), (1, 1, False),
        (DEFAULT_LOOP_BOUND + 1, DEFAULT_SIZE, False)]
    patterns = list(itertools.product((False, True), repeat=len(bools)))
    sized = takes_size(types)
    out: list[Input] = []
    for r, (value, size, _) in enumerate(rounds + _boundaries(types, ints)):
        size = size if sized else DEFAULT_SIZE
        for pattern in patterns if r == 0 else patterns[:1] + patterns[-1:]:
            scalars: dict[int, int | float] = {**floats, **dict(zip(bools, map(int, pattern),
                                                                  strict=True))}
            for k in ints:
                scalars[k] = _boundary(types[k], value) if value < 0 or value > 1 << 20 \
                    else value
            candidate = Input(scalars, size)
            if candidate not in out:
                out.append(candidate)
            if len(out) >= budget:
                return out
    return out


def takes_size(types: list[Attribute]) -> bool:
    """Whether a buffer argument has a dynamic dimension: the only place an
    input's size is read."""
    return any(isinstance(t, MemRefType) and any(d < 0 for d in t.get_shape()) for t in types)


_MAX, _MIN = 1 << 40, -(1 << 40)  # stand for "the width's signed maximum / minimum"


def _boundaries(types: list[Attribute], ints: list[int]) -> list[tuple[int, int, bool]]:
    if not any(isinstance(types[k], IntegerType) for k in ints):
        return []
    return [(-1, DEFAULT_SIZE, True), (_MAX, DEFAULT_SIZE, True), (_MIN, DEFAULT_SIZE, True)]


def _boundary(t: Attribute, value: int) -> int:
    """A boundary for an integer argument; an index one keeps the default."""
    if not isinstance(t, IntegerType):
        return DEFAULT_SIZE
    w = t.width.data
    return {-1: -1, _MAX: (1 << (w - 1)) - 1, _MIN: -(1 << (w - 1))}[value]
