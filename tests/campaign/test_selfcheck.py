"""`gpu-alloc-verify selfcheck`: mutation operators over real lowered code, and
the analysis judged against execution on the mutants."""

from __future__ import annotations

import json
import random
import time
from functools import lru_cache

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from gpu_alloc_verify.oracles.campaign import sample_programs
from gpu_alloc_verify.verify.campaign.mutants import BY_NAME, OPERATORS, Operator
from gpu_alloc_verify.verify.campaign.selfcheck import (
    KINDS,
    Base,
    Options,
    Runs,
    make_bases,
    mlir_accepts,
    render,
    run_selfcheck,
)
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.invariants.ground_truth import EXECUTION_DECIDED, observe
from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered
from tests.conftest import need_mlir_opt

# Seed 1's programs 2 and 10 lower to event records (joins across streams).
PROGRAMS = (0, 1, 2, 3, 4, 10)
# The interpreter does not run indirect calls: execution cannot compare them.
NOT_RUN = ("indirect-call",)
KEEPING = [o for o in OPERATORS if o.keeps and o.name not in NOT_RUN]


@lru_cache(maxsize=1)
def bases() -> tuple[Base, ...]:
    need_mlir_opt(19)
    progs = sample_programs(12, seed=1)
    return tuple(make_bases([progs[k] for k in PROGRAMS], 0, ["mlir-opt-19"]))


def _apply(operator: Operator) -> tuple[Base, str]:
    """The operator on the first base it applies to (a few sites each)."""
    for base in bases():
        for seed in range(4):
            text = operator.fn(base.outcome.lowered, random.Random(seed))
            if text is not None and text != base.outcome.lowered:
                return base, text
    raise AssertionError(f"{operator.name} applies to no corpus module")


def _observations(base: Base, text: str) -> list[tuple[str, bool, bool]]:
    runs = Runs(base, text)
    return [(inv, o.decided, bool(o.seen)) for ex in runs.boundary()
            for inv in EXECUTION_DECIDED for o in [observe(inv, ex, base.facts)]]


@pytest.mark.parametrize("name", [o.name for o in OPERATORS])
def test_operator_applies_to_real_output_and_parses(name: str) -> None:
    base, text = _apply(BY_NAME[name])
    assert base.validator is not None
    assert mlir_accepts(base.validator, text), f"{name}: mlir-opt-19 rejects the mutant"
    parse_lowered(text)  # the project's reader reads it too


def test_operators_decline_where_they_do_not_apply() -> None:
    empty = '"builtin.module"() ({\n}) : () -> ()'
    assert all(o.fn(empty, random.Random(0)) is None for o in OPERATORS)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(KEEPING), st.integers(0, len(PROGRAMS) - 1), st.integers(0, 1000))
def test_keeping_operators_keep_what_execution_observes(operator: Operator, k: int,
                                                        seed: int) -> None:
    base = bases()[k]
    text = operator.fn(base.outcome.lowered, random.Random(seed))
    if text is None:
        reject()
    before = _observations(base, base.outcome.lowered)
    assert any(decided for _, decided, _ in before)
    assert _observations(base, text) == before, operator.name


def test_deleting_a_destroy_is_seen_by_execution() -> None:
    op = BY_NAME["delete-destroy"]
    base = next(b for b in bases() if "mgpuStreamDestroy" in b.outcome.lowered)
    text = op.fn(base.outcome.lowered, random.Random(0))
    assert text is not None
    leak = [(d, s) for inv, d, s in _observations(base, text) if inv == "stream-no-leak"]
    assert (True, True) in leak
    assert (True, True) not in [(d, s) for inv, d, s in
                                _observations(base, base.outcome.lowered)
                                if inv == "stream-no-leak"]


@pytest.mark.slow
def test_small_selfcheck_run_classifies_every_mutant() -> None:
    need_mlir_opt(19)
    start = time.monotonic()
    report = run_selfcheck(Options(["mlir-opt-19", "xdsl:split-api"], mutants=60, seed=3))
    assert time.monotonic() - start < 60
    assert report.mutants == 60
    for (_, inv), counts in report.counts.items():
        assert inv in EXECUTION_DECIDED
        assert set(counts) <= set(KINDS)
    per_invariant = {inv: sum(sum(c.values()) for (_, i), c in report.counts.items()
                              if i == inv) for inv in EXECUTION_DECIDED}
    assert set(per_invariant.values()) == {60}
    table = render(report)
    assert "agree" in table and "unsound" in table and "deleted/duplicated destroys" in table


@pytest.mark.slow
def test_selfcheck_cli(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    need_mlir_opt(19)
    rc = main(["selfcheck", "--lowering", "mlir-opt-19", "--mutants", "20", "--seed", "1",
               "--json", "--out", str(tmp_path)])
    data = json.loads(capsys.readouterr().out)
    assert data["mutants"] == 20
    unsound = [d for d in data["disagreements"] if d["kind"] == "unsound"]
    assert rc == (1 if unsound else 0)
    assert all((tmp_path / d["file"]).exists() for d in data["disagreements"])
    assert main(["selfcheck", "--mutants", "0"]) == 2
    assert main(["selfcheck", "--lowering", "no-such-lowering"]) == 2
