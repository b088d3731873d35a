"""The odd-input lane (issue 46): odd but valid MLIR, and damaged text, each
checked within its time limit, with no traceback, internal error or
Python exception in a reason."""

from __future__ import annotations

import random
import subprocess

import pytest

from gpu_alloc_verify.generators.odd_inputs import VALID, damaged, odd_input
from gpu_alloc_verify.verify.cli.odd_lane import run_lane
from tests.conftest import need_mlir_opt


@pytest.mark.parametrize("family", sorted(VALID))
def test_each_valid_family_is_valid_mlir(family: str) -> None:
    tool = need_mlir_opt(19)
    text = VALID[family](random.Random(3), 0.0005)
    proc = subprocess.run([tool, "--allow-unregistered-dialect"], input=text,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{family}: {proc.stderr[-500:]}\n{text[:500]}"


def test_damage_changes_the_text_and_draws_are_seeded() -> None:
    text = VALID["wide-wait"](random.Random(0), 0.001)
    rng = random.Random(5)
    assert all(damaged(rng, text)[1] != text.encode() for _ in range(20))
    assert odd_input(random.Random(9)) == odd_input(random.Random(9))


@pytest.mark.slow
def test_a_small_lane_has_no_problem() -> None:
    need_mlir_opt(19)
    report = run_lane(2, seed=0, scale=0.001, time_limit=20.0)
    assert len(report.runs) == 2
    assert not report.problems(), report.summary()


@pytest.mark.nightly
def test_five_hundred_odd_inputs_have_no_problem() -> None:
    need_mlir_opt(19)
    report = run_lane(500, seed=46, scale=0.05, time_limit=10.0)
    assert not report.problems(), "\n".join(f"{r.family} {r.name!r}: {r.problem}"
                                            for r in report.problems()) + report.summary()
