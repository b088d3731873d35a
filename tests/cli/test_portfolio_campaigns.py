"""Issue 40 part B: what a campaign records of the portfolio, `check FILE
--results R` recorded as a campaign, and the findings job's budget.

With the real mlir-opt-19: `fuzz` without --pipeline runs the portfolio,
with it the pipeline given; a portfolio campaign records `portfolio` and
each program's own pipeline; a user's file checked with --results lands in the same triage root
cause a campaign's program does; the findings job spreads what is left of
its budget over the campaigns not run yet, and finds the campaign an
interrupted run left unfinished.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.cli.fuzz import portfolio_lowerings
from gpu_alloc_verify.verify.cli.parser import build_parser
from gpu_alloc_verify.verify.findings import SEARCH_SHARE, Budget, _unfinished
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO, PortfolioLowering, available
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.results import read_records
from gpu_alloc_verify.verify.triage.buckets import triage_file
from tests.conftest import need_mlir_opt

REGION = "func.func(gpu-async-region),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
HOST_SHARED = """func.func @f0() {
  %m = gpu.alloc host_shared () : memref<4xi32>
  return
}
"""


@pytest.mark.slow
def test_without_pipeline_fuzz_takes_the_portfolio_and_pipeline_overrides_it() -> None:
    need_mlir_opt(19)
    parser = build_parser()
    args = parser.parse_args(["fuzz", "--lowering", "mlir-opt-19"])
    chosen = portfolio_lowerings(args)
    assert args.pipeline == PORTFOLIO and isinstance(chosen[0], PortfolioLowering)
    args = parser.parse_args(["fuzz", "--lowering", "mlir-opt-19", "--pipeline", REGION])
    chosen = portfolio_lowerings(args)
    assert args.pipeline == REGION and not isinstance(chosen[0], PortfolioLowering)
    assert isinstance(chosen[0], MlirOptLowering) and chosen[0].pipeline == REGION


@pytest.mark.slow
def test_a_portfolio_campaign_records_each_programs_pipeline(tmp_path: Path) -> None:
    offered = {e.pipeline for e in available(need_mlir_opt(19))}
    results = tmp_path / "r.jsonl"
    run_fuzz(FuzzOptions(lowerings=[resolve("mlir-opt-19", PORTFOLIO)], max_examples=8,
                         seed=0, pipeline=PORTFOLIO, shrink=False, results=str(results)))
    records = read_records(results)
    assert next(r for r in records if r["kind"] == "campaign-start")["pipeline"] == PORTFOLIO
    got = {r["results"]["mlir-opt-19"]["pipeline"]  # type: ignore[index]
           for r in records if r["kind"] == "program"}
    assert got <= offered and len(got) >= 2
    for rec in (r for r in records if r["kind"] == "violation"):
        assert rec["pipeline"] in offered  # a concrete one, what replay and lit tests run


@pytest.mark.slow
def test_a_checked_file_lands_in_the_campaigns_root_cause(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(19)
    source = tmp_path / "user.mlir"
    source.write_text(HOST_SHARED)
    results = tmp_path / "r.jsonl"
    status = main(["check", str(source), "--lowering", "mlir-opt-19", "--pipeline", REGION,
                   "--results", str(results), "--json"])
    assert status == 1
    capsys.readouterr()
    records = read_records(results)
    program = next(r for r in records if r["kind"] == "program")
    assert program["program"] == HOST_SHARED and program["file"] == str(source)
    entry = program["results"]["mlir-opt-19"]  # type: ignore[index]
    assert entry["pipeline"] == REGION and entry["verdicts"]["lowering-complete"] == "violated"
    slugs = {b.signature.slug() for b in triage_file(results).buckets}
    assert "async-region-host-shared" in slugs


def test_the_budget_left_is_spread_over_the_campaigns_not_run_yet() -> None:
    budget = Budget(100.0, start=time.monotonic() - 30.0)  # 30 s of 60 for searching spent
    share = budget.share(3)
    assert share is not None and abs(share - (100 * SEARCH_SHARE - 30) / 3) < 1.0
    assert Budget(None).share(2) is None
    assert Budget(10.0, start=time.monotonic() - 50).share(1) == 1.0  # spent: a token second


def test_the_campaign_an_interrupted_run_left_is_found(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    lines = [{"kind": "campaign-start", "campaign": "c1", "lowerings": ["mlir-opt-16"],
              "pipeline": PORTFOLIO},
             {"kind": "campaign-end", "campaign": "c1"},
             {"kind": "campaign-start", "campaign": "c2", "lowerings": ["mlir-opt-19"],
              "pipeline": PORTFOLIO}]
    results.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert _unfinished(results) == ("mlir-opt-19", PORTFOLIO)
    with results.open("a") as f:
        f.write(json.dumps({"kind": "campaign-end", "campaign": "c2"}) + "\n")
    assert _unfinished(results) is None
    assert _unfinished(tmp_path / "none.jsonl") is None
