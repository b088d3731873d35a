"""The campaign's ETA counts the shrink phase (issue 44, item 10): during
the search it adds the shrinking its violations will cost, and shrinking
shows as its own phase, "shrinking: K of N programs shrunk", with the rest
of it timed by its own pace.  Times are scripted: no clock is read."""

from __future__ import annotations

import io

import pytest

from gpu_alloc_verify.verify.campaign.eta import (
    ALONE,
    PROGRAMS_LEFT_AT_LEAST,
    PROGRAMS_PER_VIOLATION,
    guessed_program_s,
    search_left,
    shrink_left,
)
from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
from gpu_alloc_verify.verify.campaign.progress import Progress, ProgressPrinter
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.registry import resolve


def test_search_left_is_its_pace() -> None:
    assert search_left(8.0, 0.25) == 24.0
    assert search_left(0.5, 0.25) is None  # the first second says nothing
    assert search_left(8.0, None) is None and search_left(8.0, 0.0) is None


def test_a_program_alone_costs_more_for_an_external_tool() -> None:
    assert guessed_program_s(10.0, 100, external=True) == pytest.approx(0.1 * ALONE[True])
    assert guessed_program_s(10.0, 100, external=False) == pytest.approx(0.1 * ALONE[False])
    assert guessed_program_s(10.0, 0, external=True) is None


def test_shrink_left_counts_the_programs_still_expected() -> None:
    assert shrink_left(3, 3, 0, 0.5) == 3 * PROGRAMS_PER_VIOLATION * 0.5
    assert shrink_left(3, 3, 30, 0.5) == (3 * PROGRAMS_PER_VIOLATION - 30) * 0.5
    # Past the expected programs: a floor per pair not shrunk yet, never 0 while any is.
    assert shrink_left(3, 2, 1000, 0.5) == 2 * PROGRAMS_LEFT_AT_LEAST * 0.5
    assert shrink_left(3, 0, 1000, 0.5) == 0.0
    assert shrink_left(3, 3, 0, None) is None and shrink_left(0, 0, 0, 0.5) is None


def test_a_scripted_campaign_eta_is_near_the_time_it_takes() -> None:
    """100 programs at 0.1 s each in batches, 3 pairs violated, their shrinking
    60 programs each at 0.3 s (an external tool, a process per program): 64 s
    in all.  Halfway through the search the ETA is within 10% of the rest;
    the search's own pace alone said 5 s."""
    search_s, pairs, program_s = 10.0, 3, 0.3
    total = search_s + pairs * PROGRAMS_PER_VIOLATION * program_s
    elapsed, judged = 5.0, 50
    p = Progress("search", judged, judged, 10.0, 7, elapsed, 0.5, False,
                 shrink_left(pairs, pairs, 0, guessed_program_s(elapsed, judged, True)),
                 0, pairs)
    eta = p.eta()
    assert eta is not None and search_left(elapsed, 0.5) == 5.0
    assert abs(eta - (total - elapsed)) <= 0.1 * (total - elapsed)
    # In the shrink phase, 60 programs judged in 20 s: its measured pace (1/3 s).
    during = Progress("shrink", 100, 100, 10.0, 7, 30.0, 1.0, False,
                      shrink_left(pairs, 2, 60, 20.0 / 60), 1, pairs)
    assert during.eta() == pytest.approx(120 * 20.0 / 60)
    assert during.message() == "shrinking: 1 of 3 programs shrunk, 30s, ETA 40s"
    assert during.share() == pytest.approx(30 / 70)


def test_the_log_shows_shrinking_as_its_own_phase() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out, every_s=0, tty=False)
    printer(Progress("search", 40, 40, 10.0, 2, 4.0, 0.5, False, 16.0, 0, 1))
    printer(Progress("shrink", 80, 80, 10.0, 2, 10.0, 1.0, False, 10.0, 0, 1))
    printer(Progress("shrink", 80, 80, 10.0, 2, 20.0, 1.0, True, 0.0, 1, 1))
    assert out.getvalue().splitlines() == [
        "progress: 17%, 40 programs, 10.0/s, 2 violated verdicts, 4s, ETA 20s",
        "progress: 50%, shrinking: 0 of 1 programs shrunk, 10s, ETA 10s",
        "progress: shrinking: 1 of 1 programs shrunk, 20s",
    ]


def test_a_campaign_reports_its_shrinking_in_the_eta() -> None:
    seen: list[Progress] = []
    lowering = resolve("xdsl:pr69969", DEFAULT_PIPELINE)
    report = run_fuzz(FuzzOptions([lowering], CheckOptions(("lowering-complete",)),
                                  max_examples=30, seed=1, batch_size=5,
                                  progress=seen.append))
    pairs = len(report.first_seen)
    assert pairs >= 1
    searching = [p for p in seen if p.phase == "search" and p.to_shrink]
    assert searching and all(p.shrink_left is not None and p.shrink_left > 0
                             for p in searching)
    shrinking = [p for p in seen if p.phase == "shrink"]
    assert shrinking and {p.to_shrink for p in shrinking} == {pairs}
    assert shrinking[0].shrunk == 0
