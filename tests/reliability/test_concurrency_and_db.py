"""Two campaigns on one results file, and the example database in the search
phase (issue "Reliability", items 1 and 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.model.results import read_records
from tests.reliability.conftest import ROOT, cli

LOWERING = "xdsl:pr69969"


@pytest.mark.nightly  # two concurrent campaigns, 17 s: nightly, not CI
def test_two_campaigns_append_to_one_file_without_corrupting_it(tmp_path: Path) -> None:
    results = tmp_path / "shared.jsonl"
    procs = [subprocess.Popen(
        [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering", LOWERING, "--results",
         str(results), "--max-examples", "250", "--seed", str(seed), "--no-shrink",
         "--max-ops", "12"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for seed in (1, 2)]
    for p in procs:
        _, err = p.communicate(timeout=150)
        assert p.returncode == 1, err
    raw = results.read_text()
    assert raw.endswith("\n")
    lines = raw.splitlines()
    records = [json.loads(ln) for ln in lines]  # every line whole
    assert records == read_records(results)
    by_campaign: dict[str, list[dict]] = {}
    for r in records:
        by_campaign.setdefault(r["campaign"], []).append(r)
    assert len(by_campaign) == 2
    for recs in by_campaign.values():
        kinds = Counter(r["kind"] for r in recs)
        assert kinds["campaign-start"] == 1 and kinds["campaign-end"] == 1
        assert recs[0]["kind"] == "campaign-start" and recs[-1]["kind"] == "campaign-end"
        assert kinds["program"] == recs[-1]["summary"]["examples"] > 100
        assert kinds["violation"] == len(recs[-1]["summary"]["violations"]) > 0
    ids = [r["id"] for r in records if "id" in r]
    assert len(ids) == len(set(ids))
    # The two really overlapped: their lines interleave.
    order = [r["campaign"] for r in records]
    assert sum(1 for a, b in zip(order, order[1:], strict=False) if a != b) > 1


@pytest.mark.slow
def test_db_replays_yesterdays_counterexample_first(tmp_path: Path) -> None:
    db = tmp_path / "db"
    common = ["--lowering", LOWERING, "--invariant", "lowering-complete", "--db", str(db)]
    first = cli("fuzz", *common, "--max-examples", "60", "--seed", "1", "--json")
    assert first.returncode == 1, first.stderr
    (shrunk,) = json.loads(first.stdout)["violations"]
    assert any(db.iterdir()), "the shrink phase saved its counterexample"
    # Another seed, a handful of examples: the stored counterexample comes first.
    results = tmp_path / "next.jsonl"
    second = cli("fuzz", *common, "--max-examples", "3", "--seed", "99", "--no-shrink",
                 "--results", str(results))
    assert second.returncode == 1, second.stderr
    texts = [r["program"] for r in read_records(results) if r["kind"] == "program"]
    assert texts[0] == shrunk["program"]
    assert any(db.iterdir()), "the search phase did not delete it"


@pytest.mark.slow
def test_empty_db_does_not_change_the_seeded_search(tmp_path: Path) -> None:
    def texts(*extra: str) -> list[str]:
        out = tmp_path / f"r{len(list(tmp_path.iterdir()))}.jsonl"
        res = cli("fuzz", "--lowering", LOWERING, "--max-examples", "80", "--seed", "7",
                  "--no-shrink", "--results", str(out), *extra)
        assert res.returncode in (0, 1), res.stderr
        return [r["program"] for r in read_records(out) if r["kind"] == "program"]

    assert texts() == texts("--db", str(tmp_path / "empty-db"))


@pytest.mark.slow
def test_nightly_profile_draws_and_records_a_seed(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    res = cli("fuzz", "--lowering", LOWERING, "--max-examples", "5", "--no-shrink",
              "--results", str(results),
              env={"HYPOTHESIS_PROFILE": "nightly",
                   "GPU_ALLOC_VERIFY_DB": str(tmp_path / "nightly-db")})
    assert res.returncode in (0, 1), res.stderr
    start = read_records(results)[0]
    assert f"seed: {start['seed']} (rerun with --seed {start['seed']})" in res.stderr
    assert start["db"] == str(tmp_path / "nightly-db")
