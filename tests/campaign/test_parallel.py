"""`check_batch_parallel` judges as `check_batch` does; the bench runs.

Verdicts, statuses, lowered text and the violated invariants are compared.
Counterexample values are not: a satisfiable query's model depends on what
the incremental solver saw before (already so between two serial runs).
mlir-opt's file locations name the line where a program starts in the
batch, which depends on how the batch was cut: they are masked.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from gpu_alloc_verify.verify.campaign.bench import SIZES, STAGES, run_bench, seeded_programs
from gpu_alloc_verify.verify.campaign.parallel import MIN_SHARE, check_batch_parallel, shares
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, active_invariants, check_batch
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from tests.conftest import need_mlir_opt

_SPLIT_LOC = re.compile(r'loc\("within split at <stdin>:\d+ offset ":\d+:\d+\)')


def _summary(table: list[dict[str, Judgement]]) -> list[dict[str, object]]:
    return [{spec: (j.status, _SPLIT_LOC.sub("", j.lowered), j.verdicts(),
                    sorted(v.invariant for v in j.violations()))
             for spec, j in row.items()} for row in table]


def _lowerings(which: str) -> list[Lowering]:
    if which == "mlir-opt-19":
        return [MlirOptLowering("mlir-opt-19", need_mlir_opt(19))]
    return [resolve("xdsl:pr69969"), resolve("xdsl:split-api")]


@pytest.mark.slow
@pytest.mark.parametrize("which", ["mlir-opt-19", "xdsl"])
def test_parallel_judges_as_serial(which: str) -> None:
    lowerings = _lowerings(which)
    progs = [p for size in (5, 20) for p in seeded_programs(size, 20, seed=3)]
    invariants = CheckOptions(tuple(i for i in active_invariants() if i != "differential"))
    serial = check_batch(progs, lowerings, invariants)
    parallel = check_batch_parallel(progs, lowerings, invariants, jobs=2)
    assert _summary(parallel) == _summary(serial)
    assert check_batch_parallel([], lowerings, invariants, jobs=2) == []


def test_shares_cover_every_index_once() -> None:
    for n in (0, 1, 15, 16, 33, 100, 200, 801, 2000):
        for jobs in (1, 2, 3, 8):
            parts = shares(n, jobs)
            assert sorted(i for p in parts for i in p) == list(range(n))
            assert all(parts) and all(p == sorted(p) for p in parts)
            assert len(parts) >= min(jobs, n)
            if len(parts) > jobs:
                # Guided: no share under MIN_SHARE, largest first, so the
                # last share to start is a small one.
                sizes = [len(p) for p in parts]
                assert min(sizes) >= MIN_SHARE
                assert sizes == sorted(sizes, reverse=True)
                assert sizes[-1] < 2 * MIN_SHARE


def test_shares_mix_program_sizes() -> None:
    # The bench lists programs by size; every share must hold every size.
    parts = shares(800, 2)
    assert len(parts) > 2
    for part in parts:
        assert {i // 200 for i in part} == {0, 1, 2, 3}


def test_seeded_programs_are_reproducible() -> None:
    a = [p.to_mlir() for p in seeded_programs(10, 5, seed=1)]
    assert a == [p.to_mlir() for p in seeded_programs(10, 5, seed=1)]
    assert a != [p.to_mlir() for p in seeded_programs(10, 5, seed=2)]


@pytest.mark.slow
def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(lowering=["xdsl:pr69969"], pipeline="gpu-to-llvm",
                              programs=3, jobs=2, json=True)
    assert run_bench(args) == 0
    out = json.loads(capsys.readouterr().out)
    spec = "xdsl:pr69969"
    assert out["programs_per_s"][spec] > 0
    assert out["lowering_only_per_s"][spec] > 0
    ratio = out["programs_per_s"][spec] / out["lowering_only_per_s"][spec]
    assert out["ratio"][spec] == pytest.approx(ratio)
    assert set(out["stages_ms"][spec]) == set(STAGES)
    assert set(out["by_size"][spec]) == {str(s) for s in SIZES}


@pytest.mark.slow
def test_bench_table(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(lowering=["xdsl:split-api"], pipeline="gpu-to-llvm",
                              programs=2, jobs=1, json=False)
    assert run_bench(args) == 0
    text = capsys.readouterr().out
    for word in ("generate", "lower", "parse/extract", "solve", "execute", "ratio"):
        assert word in text
