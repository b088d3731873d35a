"""Campaigns on a real Dask LocalCluster (two worker processes): a shard
draws what a local campaign draws, a worker killed mid-shard loses and
duplicates nothing, a killed driver resumes only unfinished shards, and
yesterday's counterexamples replay first from a real Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.campaign.worker import ShardTask, run_shard
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.invariants.options import CAMPAIGN_TRUTH, CheckOptions
from gpu_alloc_verify.verify.model.results import read_records
from tests.campaign.cluster.conftest import LOWERING, ROOT, DaskCluster

Record = dict[str, Any]


def fuzz(*argv: str) -> int:
    return main(["fuzz", "--lowering", LOWERING, *argv])


def of_kind(records: list[Record], kind: str) -> list[Record]:
    return [r for r in records if r.get("kind") == kind]


def assert_whole(records: list[Record]) -> None:
    """Every shard finished once; each program recorded once per lowering
    label (a shard judges what a sibling shard drew too, the ledger drops it)."""
    start = of_kind(records, "campaign-start")[0]
    done = of_kind(records, "shard-done")
    assert sorted(d["shard"] for d in done) == [s["index"] for s in start["shards"]]
    label = {s["index"]: s["label"] for s in start["shards"]}
    per_label = Counter((label[r["shard"]], r["program"]) for r in of_kind(records, "program"))
    assert max(per_label.values()) == 1, "a program recorded twice"
    for d in done:
        mine = [r for r in of_kind(records, "program") if r["shard"] == d["shard"]]
        assert len(mine) == d["programs"] <= d["examples"], d
    (end,) = of_kind(records, "campaign-end")
    # a resumed driver counts only its own repeats
    assert sum(d["examples"] - d["programs"] for d in done) >= end["repeats"]


def shard_alone(start: Record, index: int) -> list[str]:
    """The programs shard `index` of a campaign draws when run in this process."""
    # ShardTask's solver timeout was 10 s unless given.
    check = CheckOptions(tuple(start["invariants"]), timeout_ms=10_000, truth=CAMPAIGN_TRUTH)
    task = ShardTask(campaign="reference", shard=start["shards"][index], check=check,
                     shrink=False, queue=None)
    return [r["program"] for r in run_shard(task)["tail"]]


@pytest.mark.slow
def test_a_one_shard_campaign_draws_what_a_local_campaign_draws(
        dask_cluster: DaskCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--max-examples", "40", "--seed", "3", "--no-shrink", "--json"]
    assert fuzz(*common, "-j", "1", "--results", str(tmp_path / "local.jsonl")) == 1
    local = json.loads(capsys.readouterr().out)
    assert fuzz(*common, "--cluster", dask_cluster.address, "--shards", "1",
                "--results", str(tmp_path / "cluster.jsonl")) == 1
    captured = capsys.readouterr()
    on_cluster = json.loads(captured.out)
    assert "shards 1/1 done" in captured.err
    for key in ("examples", "by_lowering", "by_invariant"):
        assert on_cluster[key] == local[key]
    assert {v["invariant"] for v in on_cluster["violations"]} == {
        v["invariant"] for v in local["violations"]}
    texts = [[r["program"] for r in of_kind(read_records(tmp_path / f), "program")]
             for f in ("local.jsonl", "cluster.jsonl")]
    assert texts[0] == texts[1]
    records = read_records(tmp_path / "cluster.jsonl")
    assert_whole(records)
    assert [v["id"] for v in on_cluster["violations"]] == [
        v["id"] for v in of_kind(records, "violation")]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "gpu_alloc_verify/verify/schema/summary.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(on_cluster)


@pytest.mark.nightly  # a campaign of about 9 s: nightly (`pytest -m nightly`), not CI
def test_a_worker_killed_mid_shard_loses_and_duplicates_nothing(
        dask_cluster: DaskCluster, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    killed: dict[str, Any] = {}
    stop = threading.Event()

    def kill_a_busy_worker() -> None:
        pids = dask_cluster.worker_pids()
        while not stop.is_set():
            records = read_records(results) if results.exists() else []
            done = {r["shard"] for r in of_kind(records, "shard-done")}
            streamed = Counter(r["shard"] for r in of_kind(records, "program"))
            for shard in sorted(set(streamed) - done):
                for worker, keys in dask_cluster.client.processing().items():
                    if any(f"-s{shard}-" in str(key) for key in keys):
                        os.kill(pids[worker], signal.SIGKILL)
                        killed.update(shard=shard, pid=pids[worker], received=streamed[shard])
                        return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
    killer.start()
    try:
        rc = fuzz("--cluster", dask_cluster.address, "--shards", "2", "--max-examples", "240",
                  "--seed", "0", "--no-shrink", "--batch-size", "10", "--results", str(results))
    finally:
        stop.set()
        killer.join(10)
    assert killed, "both shards finished before a worker could be killed"
    assert rc == 1
    records = read_records(results)
    assert_whole(records)
    done = {d["shard"]: d for d in of_kind(records, "shard-done")}
    assert done[killed["shard"]]["pid"] != killed["pid"]  # Dask ran it again elsewhere
    end = of_kind(records, "campaign-end")[0]
    assert end["duplicates"] >= killed["received"] > 0  # sent again, written once
    start = of_kind(records, "campaign-start")[0]
    recorded = {r["program"] for r in of_kind(records, "program")
                if r["shard"] == killed["shard"]}
    alone = set(shard_alone(start, killed["shard"]))
    assert recorded <= alone <= {r["program"] for r in of_kind(records, "program")}


@pytest.mark.nightly  # a campaign of about 9 s: nightly (`pytest -m nightly`), not CI
def test_a_killed_driver_resumes_only_unfinished_shards(
        dask_cluster: DaskCluster, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering", LOWERING,
         "--cluster", dask_cluster.address, "--shards", "4", "--max-examples", "240",
         "--seed", "0", "--no-shrink", "--batch-size", "10", "--results", str(results)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and proc.poll() is None:
            if results.exists() and b'"kind": "shard-done"' in results.read_bytes():
                break
            time.sleep(0.02)
        proc.kill()
    finally:
        proc.wait(10)
    before = read_records(results)
    assert not of_kind(before, "campaign-end"), "the driver finished before it was killed"
    done_before = {d["shard"] for d in of_kind(before, "shard-done")}
    assert done_before
    raw_before = results.read_bytes()

    assert main(["fuzz", "--results", str(results), "--resume",
                 "--cluster", dask_cluster.address]) == 1
    assert results.read_bytes().startswith(raw_before)
    after = read_records(results)
    assert_whole(after)
    (resume,) = of_kind(after, "campaign-resume")
    assert resume["shards_done"] == len(done_before)
    new = after[after.index(resume):]
    assert not [r for r in new if r["kind"] in ("program", "shard-done")
                and r["shard"] in done_before]  # not run again
    assert {r["campaign"] for r in after} == {before[0]["campaign"]}


@pytest.mark.slow
def test_yesterdays_counterexample_replays_first_from_redis(
        dask_cluster: DaskCluster, redis_url: str, tmp_path: Path) -> None:
    import redis

    day1 = tmp_path / "day1.jsonl"
    assert fuzz("--cluster", dask_cluster.address, "--shards", "2", "--max-examples", "60",
                "--seed", "1", "--db", redis_url, "--results", str(day1)) == 1
    counterexamples = {v["program"] for v in of_kind(read_records(day1), "violation")}
    assert counterexamples
    store = redis.Redis.from_url(redis_url)
    keys = [k for k in store.scan_iter(match=b"gpu-alloc-verify:*")
            if not k.endswith((b".secondary", b".pareto"))]
    stored = sum(int(store.scard(k)) for k in keys)
    assert stored >= len(counterexamples)

    # Tomorrow: another seed, the same settings, the same Redis database.
    day2 = tmp_path / "day2.jsonl"
    fuzz("--cluster", dask_cluster.address, "--shards", "1", "--max-examples", "20",
         "--seed", "2", "--no-shrink", "--db", redis_url, "--results", str(day2))
    records = read_records(day2)
    first = [r["program"] for r in of_kind(records, "program")][:stored]
    assert counterexamples <= set(first)
    # ...which that seed alone would not have drawn first.
    alone = shard_alone(of_kind(records, "campaign-start")[0], 0)[:stored]
    assert not counterexamples <= set(alone)


def test_shards_span_lowerings_pipelines_and_configurations(
        dask_cluster: DaskCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    pipelines = ["gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
                 "gpu.module(convert-gpu-to-nvvm),func.func(gpu-async-region),gpu-to-llvm"]
    results = tmp_path / "r.jsonl"
    rc = main(["fuzz", "--lowering", "mlir-opt-19", "--lowering", LOWERING,
               "--cluster", dask_cluster.address, "--shards", "1", "--max-examples", "8",
               "--no-shrink", "--shard-pipeline", pipelines[0], "--shard-pipeline", pipelines[1],
               "--shard-config", "max_ops=4", "--shard-config", "max_ops=6,linear_tokens",
               "--results", str(results), "--json"])
    assert rc in (0, 1, 3)
    summary = json.loads(capsys.readouterr().out)
    records = read_records(results)
    assert_whole(records)
    shards = of_kind(records, "campaign-start")[0]["shards"]
    # mlir-opt-19 under both pipelines, xdsl (pipeline-free) once; two configurations each
    labels = [f"mlir-opt-19 | {p}" for p in pipelines] + [LOWERING]
    assert Counter(s["label"] for s in shards) == dict.fromkeys(labels, 2)
    assert {s["config"]["max_ops"] for s in shards} == {4, 6}
    assert set(summary["by_lowering"]) == set(labels)
    for v in of_kind(records, "violation"):  # what `replay` needs, apart
        assert v["lowering"] in ("mlir-opt-19", LOWERING) and v["pipeline"] in pipelines


def test_shards_judge_at_the_campaigns_crosscheck_share() -> None:
    # `--crosscheck-share` used to stop at the driver: every shard judged at
    # the default share.  A shard's task now carries the campaign's options.
    from gpu_alloc_verify.verify.campaign.cluster import _Driver
    from gpu_alloc_verify.verify.campaign.cluster_options import ClusterOptions
    from gpu_alloc_verify.verify.campaign.ledger import Ledger
    from gpu_alloc_verify.verify.campaign.shards import plan
    from gpu_alloc_verify.verify.cli import apply_config, build_parser
    from gpu_alloc_verify.verify.cli.fuzz import new_options
    from gpu_alloc_verify.verify.config import Config

    args = build_parser().parse_args(["fuzz", "--lowering", LOWERING, "--max-examples", "4",
                                      "--crosscheck-share", "0.25", "--runtime", "hip"])
    apply_config(args, Config())
    opts = new_options(args, None)
    driver = _Driver(opts, ClusterOptions("local:1"), None)
    shards = plan(0, [LOWERING], [opts.pipeline], [opts.gen], 1, 4, set())
    driver.ledger = Ledger(None, driver.id, shards)
    task = driver._task(shards[0], "q", [])
    assert task.check == opts.check
    assert task.check.truth is not None and task.check.truth.share == 0.25
    assert task.check.runtime == "hip"
