"""Exact resume and one program stream (issue 29): a cluster campaign killed
mid-way and resumed records exactly the programs an uninterrupted one does,
each once, judging only what was not recorded; and a local run and a cluster
run with the same --seed and --shards draw the same programs.  Through the
real CLI, on a real Dask LocalCluster (two worker processes)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.results import read_records
from tests.campaign.cluster.conftest import LOWERING, ROOT, DaskCluster
from tests.campaign.cluster.test_cluster_campaign import assert_whole, fuzz, of_kind

Record = dict[str, Any]


def program_hashes(records: list[Record]) -> Counter[str]:
    """Each program text's hash, with how often it is recorded."""
    return Counter(hashlib.sha256(r["program"].encode()).hexdigest()
                   for r in of_kind(records, "program"))


def files_under(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file()] if path.exists() else []


@pytest.mark.slow
def test_local_and_cluster_runs_with_the_same_seed_and_shards_draw_the_same_programs(
        dask_cluster: DaskCluster, tmp_path: Path) -> None:
    common = ["--max-examples", "24", "--seed", "11", "--shards", "3", "--no-shrink"]
    local, cluster = tmp_path / "local.jsonl", tmp_path / "cluster.jsonl"
    fuzz(*common, "-j", "1", "--results", str(local))
    fuzz(*common, "--cluster", dask_cluster.address, "--results", str(cluster))
    on_one, on_many = read_records(local), read_records(cluster)
    assert_whole(on_many)
    # One stream rule: shard k draws its share of the search seeded (seed, k).
    assert of_kind(on_one, "campaign-start")[0]["shard_count"] == 3
    assert of_kind(on_many, "campaign-start")[0]["shard_count"] == 3
    assert program_hashes(on_one) == program_hashes(on_many)
    assert max(program_hashes(on_many).values()) == 1
    # ...and each program sits at the same draw of a shard's stream on both.
    where = {(r["shard"], r["draw"]) for r in of_kind(on_one, "program")}
    assert {(r["shard"], r["draw"]) for r in of_kind(on_many, "program")} <= where | {
        (k, 0) for k in range(3)}  # the minimal program every search draws first
    (end,) = of_kind(on_many, "campaign-end")
    assert end["draws"] == 24


def test_a_local_resume_keeps_the_campaigns_shards(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({
        "kind": "campaign-start", "campaign": "c1", "lowerings": [LOWERING], "seed": 4,
        "config": {"max_examples": 10}, "shard_count": 3}) + "\n")
    rc = main(["fuzz", "--results", str(results), "--resume", "--shards", "2"])
    assert rc == 2
    assert "--shards 2 differs from campaign c1's (3)" in capsys.readouterr().err


def _kill_after_first_shard(results: Path, argv: list[str]) -> None:
    """Run the CLI until a shard has finished and another has streamed
    programs, then SIGKILL it."""
    proc = subprocess.Popen([sys.executable, "-m", "gpu_alloc_verify", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120 and proc.poll() is None:
            if results.exists():
                records = read_records(results)
                done = {r["shard"] for r in of_kind(records, "shard-done")}
                if done and {r["shard"] for r in of_kind(records, "program")} - done:
                    break
            time.sleep(0.02)
        proc.kill()
    finally:
        proc.wait(10)


@pytest.mark.nightly  # three campaigns with shrinking, about 30 s: nightly (`pytest -m nightly`)
def test_a_killed_cluster_campaign_resumes_from_each_shards_progress(
        dask_cluster: DaskCluster, tmp_path: Path) -> None:
    n = 120
    common = ["fuzz", "--lowering", LOWERING, "--cluster", dask_cluster.address,
              "--shards", "4", "--max-examples", str(n), "--seed", "5", "--batch-size", "5"]
    # Shrinking with a database: finished shards find counterexamples while
    # others still search; what they save must not change what those draw.
    reference = tmp_path / "reference.jsonl"
    assert main([*common, "--db", str(tmp_path / "db0"), "--results", str(reference)]) == 1
    expected = read_records(reference)
    assert_whole(expected)

    results, db = tmp_path / "r.jsonl", tmp_path / "db1"
    _kill_after_first_shard(results, [*common, "--db", str(db), "--results", str(results)])
    before = read_records(results)
    assert not of_kind(before, "campaign-end"), "the campaign ended before it was killed"
    done_before = {d["shard"] for d in of_kind(before, "shard-done")}
    recorded = Counter(r["shard"] for r in of_kind(before, "program"))
    assert done_before and set(recorded) - done_before
    assert not files_under(db)  # a shard's saves wait for the campaign's end

    assert main(["fuzz", "--results", str(results), "--resume",
                 "--cluster", dask_cluster.address]) == 1
    after = read_records(results)
    assert_whole(after)
    # Exactly the uninterrupted campaign's programs, each once: none missing.
    assert program_hashes(after) == program_hashes(expected)
    assert max(program_hashes(after).values()) == 1
    (resume,) = of_kind(after, "campaign-resume")
    progress = {p["shard"]: p for p in resume["progress"]}
    assert set(progress) == {s["index"] for s in of_kind(before, "campaign-start")[0]["shards"]
                             } - done_before
    for k, p in progress.items():
        assert p["programs"] == recorded[k]
    # The resumed run judged only the rest: every new record lies past its
    # shard's recorded progress, and the programs judged add up.
    new = of_kind(after[after.index(resume):], "program")
    assert len(of_kind(before, "program")) + len(new) == len(of_kind(expected, "program"))
    assert all(r["shard"] in progress and r["draw"] >= progress[r["shard"]]["draws"]
               for r in new)
    assert sum(d["draws"] for d in of_kind(after, "shard-done")) == n
    assert not [d for d in of_kind(after, "shard-done") if d.get("diverged")]
    assert files_under(db)  # the deferred saves, saved at the end
