"""The lowered interpreter's arith rounding divisions and min/max, checked
exhaustively on i4 against exact rational arithmetic (host code keeps these
ops when only gpu-to-llvm runs)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from gpu_alloc_verify.oracles.llvm_values import ARITH_BINARY, BINARY

W = 4
MASK = (1 << W) - 1


def _signed(v: int) -> int:
    return v - (1 << W) if v >> (W - 1) else v


def _exact(op: str, a: int, b: int) -> int:
    sa, sb = _signed(a), _signed(b)
    return {
        "ceildivui": lambda: math.ceil(Fraction(a, b)),
        "ceildivsi": lambda: math.ceil(Fraction(sa, sb)),
        "floordivsi": lambda: math.floor(Fraction(sa, sb)),
        "maxui": lambda: max(a, b), "minui": lambda: min(a, b),
        "maxsi": lambda: max(sa, sb), "minsi": lambda: min(sa, sb),
    }[op]() & MASK


@pytest.mark.parametrize("op", ["ceildivui", "ceildivsi", "floordivsi",
                                "maxui", "minui", "maxsi", "minsi"])
def test_matches_exact_arithmetic_on_every_i4_pair(op: str) -> None:
    kind = ARITH_BINARY[op]
    for a in range(1 << W):
        for b in range(1 << W):
            if "div" in op and (b == 0 or (op != "ceildivui" and _signed(b) == 0)):
                continue
            assert BINARY[kind](a, b, W) & MASK == _exact(op, a, b), (op, a, b)
