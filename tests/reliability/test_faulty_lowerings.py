"""A lowering that crashes, aborts, hangs or prints garbage on one program
gets a verdict on that program only (issue "Reliability", item 2)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
from gpu_alloc_verify.verify.invariants.options import CAMPAIGN_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import NO_CRASH, active_invariants, check_batch
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.model.results import read_records
from tests.conftest import need_mlir_opt
from tests.reliability.conftest import cli, has_marker, sample

INVARIANTS = active_invariants()
OPTIONS = CheckOptions(tuple(INVARIANTS))
CAMPAIGN = OPTIONS.replace(truth=CAMPAIGN_TRUTH)  # FuzzOptions' default

# mode -> (status of the marked program, words its lowering-no-crash detail has)
FAULTS = {
    "segfault": ("crash", "signal 11 (SIGSEGV)"),
    "abort": ("crash", "signal 6 (SIGABRT)"),
    "exit-code": ("crash", "exit status 70"),
    "garbage": ("crash", "unreadable IR"),
    "empty": ("crash", "no output"),
    "wrong-split": ("crash", "2 output chunks for one input"),
    "hang": ("timeout", "hung"),
    "hang-child": ("timeout", "hung"),
}


@pytest.fixture(scope="module")
def programs_and_truth():
    real = need_mlir_opt(19)
    progs = sample(5, 1)
    truth = check_batch(progs, [MlirOptLowering("real", real)], OPTIONS)
    return progs, [row["real"].verdicts() for row in truth]


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(FAULTS))
def test_one_bad_program_does_not_hide_the_others(mode, faulty, programs_and_truth) -> None:
    progs, truth = programs_and_truth
    spec = f"mlir-opt:{mode}"
    timeout = 1.5 if mode.startswith("hang") else 60.0
    lowering = MlirOptLowering(spec, faulty(mode), timeout_s=timeout)
    t0 = time.monotonic()
    rows = check_batch(progs, [lowering], OPTIONS)
    took = time.monotonic() - t0
    status, words = FAULTS[mode]
    for program, row, expected in zip(progs, rows, truth, strict=True):
        j = row[spec]
        if has_marker(program):
            assert j.status == status, (mode, j.diagnostics)
            assert j.results[NO_CRASH].verdict == "violated"
            detail = j.results[NO_CRASH].violations[0].detail + j.diagnostics
            assert words in detail, detail
            assert all(r.verdict == "not-applicable" for i, r in j.results.items()
                       if i != NO_CRASH)
        else:
            assert j.verdicts() == expected, (mode, program.to_mlir())
    if mode.startswith("hang"):
        # 6 programs: the hanging half is split 3 times, each costing one timeout.
        assert took < 4 * timeout + 10


def test_a_lost_separator_is_recovered_by_bisection(faulty, programs_and_truth) -> None:
    progs, truth = programs_and_truth
    lowering = MlirOptLowering("mlir-opt:drop-split", faulty("drop-split"))
    rows = check_batch(progs, [lowering], OPTIONS)
    # Alone, the marked program's output has no separator to lose: all verdicts are real.
    assert [row[lowering.spec].verdicts() for row in rows] == truth


@pytest.mark.slow
def test_campaign_goes_on_past_a_crashing_lowering(faulty, tmp_path: Path) -> None:
    path = faulty("segfault")
    spec = f"mlir-opt:{path}"
    results = tmp_path / "r.jsonl"
    report = run_fuzz(FuzzOptions([MlirOptLowering(spec, path)], CAMPAIGN, max_examples=40,
                                  seed=1, shrink=False, results=str(results)))
    records = read_records(results)
    progs = [r for r in records if r["kind"] == "program"]
    assert len(progs) == report.tally.examples >= 30
    crashed = [r for r in progs if r["results"][spec]["status"] == "crash"]
    marked = [r for r in progs if "gpu.memcpy" in r["program"]]
    assert crashed == marked and 0 < len(marked) < len(progs)
    assert all("SIGSEGV" in r["results"][spec]["detail"] for r in crashed)
    assert report.tally.by_lowering[spec][NO_CRASH]["violated"] == len(marked)
    assert report.tally.by_lowering[spec][NO_CRASH]["holds"] == len(progs) - len(marked)
    assert (spec, NO_CRASH) in report.found
    assert records[-1]["kind"] == "campaign-end"


@pytest.mark.nightly  # a campaign of about 15 s: nightly (`pytest -m nightly`), not CI
def test_cli_lowering_timeout_bounds_a_hang_and_shrinks_it(faulty, tmp_path: Path) -> None:
    path = faulty("hang", marker="gpu.memset")
    t0 = time.monotonic()
    proc = cli("fuzz", "--lowering", f"mlir-opt:{path}", "--lowering-timeout", "1",
               "--max-examples", "12", "--max-ops", "3", "--seed", "3", "--json",
               "--invariant", NO_CRASH, timeout=170)
    took = time.monotonic() - t0
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    (v,) = out["violations"]
    assert v["invariant"] == NO_CRASH and "hung" in v["detail"]
    assert "gpu.memset" in v["program"] and v["ops"] <= 2
    assert took < 150
