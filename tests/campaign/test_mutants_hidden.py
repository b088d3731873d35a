"""Issue 43's mutation operators change what they say they change: the
order inversion and the void-declared wrapper are seen by execution on real
mlir-opt-19 output (the keeping ones are checked by test_selfcheck)."""

from __future__ import annotations

import random

import pytest

from gpu_alloc_verify.verify.campaign.mutants import BY_NAME
from gpu_alloc_verify.verify.campaign.selfcheck import Base
from tests.campaign.test_selfcheck import _observations, bases


def _shown(base: Base, text: str, invariant: str) -> bool:
    return any(inv == invariant and d and s for inv, d, s in _observations(base, text))


def _seen(name: str, invariant: str, needs: str) -> tuple[bool, bool]:
    """(before, after): does a run show `invariant` broken, on the first
    base holding `needs`, unmutated and mutated?"""
    op = BY_NAME[name]
    for base in bases():
        if base.outcome.lowered.count(needs) < 2:
            continue
        text = op.fn(base.outcome.lowered, random.Random(0))
        if text is None:
            continue
        return (_shown(base, base.outcome.lowered, invariant), _shown(base, text, invariant))
    raise AssertionError(f"{name} applies to no corpus module")


@pytest.mark.slow  # builds test_selfcheck's bases (mlir-opt-19 on six programs)
def test_an_inversion_on_one_stream_is_seen_by_execution() -> None:
    assert _seen("invert-stream-order", "async-order", "callee = @mgpuMemset") == (False, True)


def test_a_void_declared_create_leaks_when_run() -> None:
    assert _seen("void-wrapper", "stream-no-leak", "callee = @mgpuStreamCreate") == (False, True)
