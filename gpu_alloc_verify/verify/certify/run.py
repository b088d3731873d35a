"""Running a certificate: every canonical program of the bound on every
target, locally or on a Dask cluster, resumable.

Durability: each judged program is one fsynced line of `results.jsonl` in
the output directory (the driver is its only writer).  A rerun with the same
directory, bound and targets judges only the shards not complete in it: a
killed driver, worker or scheduler loses at most the shards in flight, and
the finished certificate is the same as an uninterrupted run's (the same
digest, the same counts), as records are keyed by (target, index).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.judge import Record, Shard, Target, judge_shard
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.results import ResultsWriter

SHARD_SIZE = 200  # programs per shard: one mlir-opt process, a few seconds
RESULTS = "results.jsonl"


@dataclass
class CertifyOptions:
    max_ops: int
    targets: Sequence[Target]
    out: Path
    spaces: bool = False
    cluster: str | None = None  # "local:N" or a scheduler address
    progress: Callable[[str], None] | None = None


def shards(opts: CertifyOptions, total: int) -> list[Shard]:
    return [Shard(t, start, min(start + SHARD_SIZE, total), opts.max_ops, opts.spaces)
            for t in opts.targets for start in range(0, total, SHARD_SIZE)]


def read_records(path: Path) -> Iterator[Record]:
    """The complete lines of a results file (a torn last line is skipped)."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict):
                yield rec


def _check_same_run(start: Record, opts: CertifyOptions, digest: str) -> None:
    if start.get("digest") != digest or start.get("max_ops") != opts.max_ops:
        raise UsageError(f"{opts.out / RESULTS} holds a certificate of another bound "
                         f"(--ops {start.get('max_ops')}, digest {str(start.get('digest'))[:12]})"
                         ": give another --out directory")


def run_certify(opts: CertifyOptions) -> list[Record]:
    """Judge every program not yet recorded; return every program record."""
    say = opts.progress or (lambda msg: None)
    t0 = time.monotonic()
    enum = enumerate_bound(opts.max_ops, opts.spaces)
    say(f"certify: {len(enum.programs)} canonical programs of up to {opts.max_ops} op(s) "
        f"({enum.raw} before symmetry), on {len(opts.targets)} target(s); "
        f"enumerated in {time.monotonic() - t0:.1f}s")
    path = opts.out / RESULTS
    done: dict[tuple[str, int], Record] = {}
    started = False
    for rec in read_records(path):
        if rec.get("kind") == "certify-start":
            _check_same_run(rec, opts, enum.digest)
            started = True
        elif rec.get("kind") == "certify-program":
            key = (Target(**rec["target"]).name, int(rec["index"]))
            done.setdefault(key, rec)
    writer = ResultsWriter(path)
    try:
        if not started:
            writer.write({"kind": "certify-start", "max_ops": opts.max_ops,
                          "spaces": opts.spaces, "digest": enum.digest,
                          "targets": [t.to_json() for t in opts.targets]})
        todo = [s for s in shards(opts, len(enum.programs))
                if any((s.target.name, i) not in done for i in range(s.start, s.stop))]
        total = len(enum.programs) * len(opts.targets)
        if done:
            say(f"certify: resuming: {len(done)} of {total} judgements recorded, "
                f"{len(todo)} shard(s) left")
        meter = _Meter(total, len(done), say)
        sink = _Sink(writer, done, meter)
        if opts.cluster:
            _on_cluster(opts.cluster, todo, sink)
        else:
            for shard in todo:
                sink(judge_shard(shard))
    finally:
        writer.close()
    return sorted(done.values(), key=lambda r: (Target(**r["target"]).name, r["index"]))


class _Meter:
    """Progress on stderr: judgements done, rate, time left."""

    def __init__(self, total: int, done: int, say: Callable[[str], None]) -> None:
        self.total, self.done, self.at_start, self.say = total, done, done, say
        self.t0 = time.monotonic()
        self.last = 0.0

    def add(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last < 2.0 and self.done < self.total:
            return
        self.last = now
        rate = (self.done - self.at_start) / max(now - self.t0, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = f", about {left:.0f}s left" if left != float("inf") else ""
        self.say(f"certify: {self.done}/{self.total} judged ({rate:.1f}/s{eta})")


class _Sink:
    def __init__(self, writer: ResultsWriter, done: dict[tuple[str, int], Record],
                 meter: _Meter) -> None:
        self.writer, self.done, self.meter = writer, done, meter

    def __call__(self, records: list[Record]) -> None:
        new = 0
        for rec in records:
            key = (Target(**rec["target"]).name, int(rec["index"]))
            if key in self.done:  # a shard Dask ran again after its worker died
                continue
            self.writer.write(rec)
            self.done[key] = rec
            new += 1
        self.meter.add(new)


def _on_cluster(address: str, todo: list[Shard], sink: _Sink) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as e:
        raise UsageError("--cluster needs the [cluster] extra (pip install "
                         "'gpu-alloc-verify[cluster]')") from e
    from gpu_alloc_verify.verify.tools.pool import local_cluster

    cluster = None
    if address == "local" or address.startswith("local:"):
        workers = int(address.split(":", 1)[1]) if ":" in address else os.cpu_count() or 1
        cluster = local_cluster(workers)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        # Large shards first would idle a worker at the end; they are all one size.
        futures = [client.submit(judge_shard, s, pure=False, key=f"certify-{s.id}-{k}")
                   for k, s in enumerate(todo)]
        for fut in as_completed(futures):
            sink(fut.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def default_targets(pipelines: Sequence[str] | None, lowerings: Sequence[str] | None
                    ) -> list[Target]:
    """Each lowering asked (default: every installed mlir-opt-N and
    xdsl:reference) with each pipeline asked (default: upstream's
    `gpu-to-llvm` and `func.func(gpu-async-region)` before it, the two of
    the portfolio that change a program without loops, launches to outline
    or async.execute)."""
    from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
    from gpu_alloc_verify.verify.tools.runner import KNOWN_VERSIONS, find_mlir_opt

    installed = [f"mlir-opt-{v}" for v in sorted(KNOWN_VERSIONS) if find_mlir_opt(v)]
    specs = list(lowerings) if lowerings else [*installed, "xdsl:reference"]
    pipes = list(pipelines) if pipelines else [
        DEFAULT_PIPELINE, f"func.func(gpu-async-region),{DEFAULT_PIPELINE}"]
    out = []
    for spec in specs:
        if spec.startswith("xdsl:"):
            out.append(Target(spec, ""))  # an xDSL lowering is its own pipeline
        else:
            out.extend(Target(spec, p) for p in pipes)
    return out


def main_progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def as_jsonable(x: Any) -> Any:
    return json.loads(json.dumps(x, default=str))
