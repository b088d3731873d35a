#!/usr/bin/env python3
"""Cluster campaign figures: throughput and what the driver costs per record.

1. Throughput: the same campaign (`fuzz --lowering L --max-examples N
   --no-shrink --seed S`) run as a plain `-j 2` campaign and on
   `--cluster local:1` and `local:2`, alternately, `--repeat` times each in
   fresh processes; the median programs/s of each, over the campaign (its
   campaign-start to campaign-end records) and over the whole command
   (process start, cluster start-up and worker imports included).
2. The driver's cost per record: records of a real campaign fed through
   the driver's ledger into a results file (dedupe, JSON, one write each, one
   fsync per batch of --batch-size, as the driver does; and with an fsync per
   record, as a local campaign does), and received from a Dask queue
   (batches of --batch-size already on the scheduler, drained as the driver
   drains them).  Also the driver's whole CPU in a real campaign on a
   scheduler and two workers started by hand (receiving, writing, polling
   the queue 20 times a second, progress): its share of a core.
3. On paper: records/s one driver takes = 1e6 / (receive + write us per
   record); workers it can feed = that / one worker's programs/s (local:1).

    .venv/bin/python scripts/bench_cluster.py                 # xdsl:pr69969, 2000 programs
    .venv/bin/python scripts/bench_cluster.py --lowering mlir-opt-19 --json
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from gpu_alloc_verify.generators.programs import GenConfig  # noqa: E402
from gpu_alloc_verify.verify.campaign.ledger import BatchWriter, Ledger  # noqa: E402
from gpu_alloc_verify.verify.campaign.shards import plan  # noqa: E402
from gpu_alloc_verify.verify.model.results import ResultsWriter, read_records  # noqa: E402

MODES = {"-j 2": ["-j", "2"], "local:1": ["--cluster", "local:1"],
         "local:2": ["--cluster", "local:2"]}


def campaign(args: argparse.Namespace, extra: list[str], results: Path) -> dict[str, float]:
    cmd = [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering", args.lowering,
           "--max-examples", str(args.examples), "--no-shrink", "--seed", str(args.seed),
           "--batch-size", str(args.batch_size), "--results", str(results), *extra]
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    records = read_records(results)
    start = next(r for r in records if r["kind"] == "campaign-start")
    end = next(r for r in records if r["kind"] == "campaign-end")
    programs = sum(1 for r in records if r["kind"] == "program")
    span = end["time"] - start["time"]
    return {"programs": programs, "campaign_s": span, "wall_s": wall,
            "campaign_rate": programs / span, "wall_rate": programs / wall,
            "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)}


def throughput(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    runs: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    for k in range(args.repeat):
        for mode, extra in MODES.items():
            path = tmp / f"{mode.replace(' ', '').replace(':', '')}-{k}.jsonl"
            runs[mode].append(campaign(args, extra, path))
            print(f"  run {k + 1}/{args.repeat} {mode:8} "
                  f"{runs[mode][-1]['campaign_rate']:7.1f} programs/s", file=sys.stderr)
    out: dict[str, Any] = {}
    for mode, rs in runs.items():
        out[mode] = {
            "campaign_rate": statistics.median(r["campaign_rate"] for r in rs),
            "wall_rate": statistics.median(r["wall_rate"] for r in rs),
            # all its processes (driver, scheduler, workers), start-up included
            "cpu_ms_per_program": statistics.median(1e3 * r["cpu_s"] / r["programs"] for r in rs),
            "programs": statistics.median(r["programs"] for r in rs),
            "runs": rs,
        }
    return out


def sample_records(path: Path, n: int) -> list[dict[str, Any]]:
    """`n` program records as shards send them, made distinct from real ones."""
    real = [r for r in read_records(path) if r["kind"] == "program"]
    keys = ("program", "features", "results", "found")
    out = []
    for k in range(n):
        rec = {key: real[k % len(real)][key] for key in keys}
        rec["program"] = f"// {k}\n" + rec["program"]
        rec["shard"] = 0
        out.append(rec)
    return out


def write_cost(records: list[dict[str, Any]], batch: int, tmp: Path) -> dict[str, float]:
    shards = plan(0, ["x"], ["p"], [GenConfig()], 1, len(records))
    path = tmp / "ledger.jsonl"
    with BatchWriter(path) as writer:
        ledger = Ledger(writer, "bench", shards)
        t0 = time.perf_counter()
        for k in range(0, len(records), batch):
            for rec in records[k:k + batch]:
                ledger.program(rec)
            ledger.sync()
        batched = time.perf_counter() - t0
    path2 = tmp / "each.jsonl"
    with ResultsWriter(path2) as each:  # fsync per record, as a local campaign writes
        t0 = time.perf_counter()
        for rec in records:
            each.write({"kind": "program", **rec})
        per_record = time.perf_counter() - t0
    size = path.stat().st_size / len(records)
    return {"us_per_record": 1e6 * batched / len(records),
            "us_per_record_fsync_each": 1e6 * per_record / len(records),
            "bytes_per_record": size}


def _fill(name: str, batches: list[list[dict[str, Any]]]) -> int:
    from distributed import Queue, get_client

    queue = Queue(name, client=get_client())
    for b in batches:
        queue.put(b)
    return sum(len(b) for b in batches)


def receive_cost(records: list[dict[str, Any]], batch: int) -> dict[str, float]:
    from distributed import Client, LocalCluster, Queue

    batches = [records[k:k + batch] for k in range(0, len(records), batch)]
    warnings.filterwarnings("ignore", message="Sending large graph")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        queue = Queue("bench-records", client=client)
        t0 = time.perf_counter()
        sent = client.submit(_fill, queue.name, batches, pure=False).result()
        fill = time.perf_counter() - t0
        got = 0
        t0 = time.perf_counter()
        while got < sent:
            for b in queue.get(batch=True):
                got += len(b)
        drain = time.perf_counter() - t0
    return {"us_per_record": 1e6 * drain / got, "worker_put_us_per_record": 1e6 * fill / got,
            "records": got}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def driver_cpu(args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    """CPU of the driver alone (this process) in a real campaign on a
    scheduler and two workers started by hand (`dask scheduler`, `dask
    worker`), as the README shows, after a small one to warm up (imports):
    receiving, writing, polling the queue, progress, all of it."""
    import contextlib
    import io

    from gpu_alloc_verify.verify.cli import main as cli

    dask = str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([dask, "scheduler", "--port", port, "--no-dashboard"], **quiet)]
    runs: list[tuple[int, float, float]] = []
    try:
        time.sleep(2)
        procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", "2",
                                       "--nthreads", "1", "--no-dashboard"], **quiet))
        for k, n in enumerate((100, args.examples)):
            results = tmp / f"driver-{k}.jsonl"
            t0, w0 = time.process_time(), time.monotonic()
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                cli(["fuzz", "--lowering", args.lowering, "--max-examples", str(n),
                     "--no-shrink", "--seed", str(args.seed + k), "--batch-size",
                     str(args.batch_size), "--cluster", address, "--results", str(results)])
            cpu, wall = time.process_time() - t0, time.monotonic() - w0
            programs = sum(1 for r in read_records(results) if r["kind"] == "program")
            runs.append((programs, cpu, wall))
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(30)
    programs, cpu, wall = runs[-1]
    return {"cpu_us_per_record": 1e6 * cpu / programs, "programs": programs, "cpu_s": cpu,
            "wall_s": wall, "core_share": cpu / wall, "records_per_s": programs / wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lowering", default="xdsl:pr69969")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--records", type=int, default=20000, help="records for the cost figures")
    ap.add_argument("--costs-only", action="store_true",
                    help="skip the throughput runs (one local:1 campaign gives the records)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"throughput: {args.lowering}, {args.examples} programs, --no-shrink, "
              f"medians of {args.repeat}", file=sys.stderr)
        if args.costs_only:
            args.repeat = 1
            MODES.pop("-j 2")
            MODES.pop("local:2")
        tp = throughput(args, tmp)
        records = sample_records(tmp / "local1-0.jsonl", args.records)
        write = write_cost(records, args.batch_size, tmp)
        receive = receive_cost(records, args.batch_size)
        cpu = driver_cpu(args, tmp)
    per_worker = tp["local:1"]["campaign_rate"]
    cost = write["us_per_record"] + receive["us_per_record"]
    capacity = 1e6 / cost
    out = {"lowering": args.lowering, "examples": args.examples, "cpus": os.cpu_count(),
           "throughput": tp, "write": write, "receive": receive, "driver_cpu": cpu,
           "driver_records_per_s": capacity, "worker_programs_per_s": per_worker,
           "workers_one_driver_feeds": capacity / per_worker}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.lowering}: {args.examples} programs (--no-shrink, seed {args.seed}), "
          f"{os.cpu_count()} CPU(s), medians of {args.repeat}")
    print(f"{'':10} {'campaign programs/s':>20} {'whole command':>15} {'CPU ms/program':>15}")
    for mode, r in tp.items():
        each = " ".join(f"{x['campaign_rate']:.0f}" for x in r["runs"])
        print(f"{mode:10} {r['campaign_rate']:20.1f} {r['wall_rate']:15.1f} "
              f"{r['cpu_ms_per_program']:15.1f}   (runs: {each})")
    print(f"driver, per record: receive {receive['us_per_record']:.1f} us (Dask queue, "
          f"batches of {args.batch_size}), write {write['us_per_record']:.1f} us (dedupe, JSON, "
          f"write; fsync per batch; {write['us_per_record_fsync_each']:.1f} us with an fsync "
          f"per record), {write['bytes_per_record']:.0f} bytes")
    print(f"driver in a real campaign (2 workers by hand): {cpu['cpu_s']:.2f}s CPU for "
          f"{cpu['programs']:.0f} records in {cpu['wall_s']:.1f}s, {100 * cpu['core_share']:.1f}% "
          f"of a core at {cpu['records_per_s']:.0f} records/s "
          f"({cpu['cpu_us_per_record']:.0f} us per record, mostly polling at this rate)")
    print(f"on paper: one driver core takes {capacity:,.0f} records/s; one worker makes "
          f"{per_worker:.0f} programs/s (local:1): one driver feeds ~{capacity / per_worker:,.0f} "
          "workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
