"""A fuzz campaign on a Dask distributed cluster (`fuzz --cluster`): the driver.

`--cluster tcp://HOST:PORT` connects to a running scheduler; `--cluster
local:N` starts a `LocalCluster` of N single-threaded worker processes.  The
campaign is cut into shards (`verify.campaign.shards`), each one a Dask task
(`verify.campaign.worker.run_shard`) that searches, lowers, judges and
shrinks on its worker.  Program records stream back on a Dask queue; this
process is the only writer of the results file (`verify.campaign.ledger`)
and of the report, and shows shards and examples across the cluster.

The programs a campaign draws depend on --seed, --shards and
--max-examples only (`verify.campaign.shards`), never on the workers or the
scheduling: the default --shards is a function of --max-examples, and the
shards' example-database saves wait for the campaign's end.

Faults: Dask runs a shard again when its worker dies (up to its
`distributed.scheduler.allowed-failures`, 3 by default); the records it
sends again are dropped by the ledger.  A shard that raises (a harness
bug, a lost database) is not run again: the other shards finish, and the
campaign is left unfinished (no campaign-end, exit 2): fix the cause and
`--resume`, which re-submits only the shards without a shard-done record,
each continuing from its recorded progress (`verify.campaign.ledger`).

Dask and Redis are the `[cluster]` extra, imported only here and in the
worker module, and only when `--cluster` (or a `redis://` database) is given.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.campaign.cluster_options import ClusterOptions
from gpu_alloc_verify.verify.campaign.example_db import is_redis, open_database
from gpu_alloc_verify.verify.campaign.fuzz import (
    FuzzOptions,
    FuzzReport,
    campaign_start,
    new_campaign_id,
)
from gpu_alloc_verify.verify.campaign.ledger import BatchWriter, Ledger
from gpu_alloc_verify.verify.campaign.progress import Progress
from gpu_alloc_verify.verify.campaign.shards import (
    Shard,
    default_shards,
    gen_to_dict,
    plan,
)
from gpu_alloc_verify.verify.campaign.worker import ShardTask, run_shard
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, GpuAllocVerifyError, UsageError
from gpu_alloc_verify.verify.tools.pool import local_cluster

WORKER_WAIT_S = 60.0  # a tcp cluster with no worker after this long is an error
POLL_S = 0.05


@dataclass
class ClusterProgress(Progress):
    shards_done: int = 0
    shards_total: int = 0
    shards_active: int = 0  # streaming records, not finished
    workers: int = 0

    def message(self) -> str:
        # Shards last: where the line is cut to 80 columns, they go first.
        return (super().message() + f"; shards {self.shards_done}/{self.shards_total} done, "
                f"{self.shards_active} running, {self.workers} workers")


@dataclass
class ClusterReport(FuzzReport):
    violation_list: list[dict[str, Any]] = field(default_factory=list)
    shards: int = 0
    duplicates: int = 0

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        out["violations"] = [dict(v) for v in self.violation_list]
        return out


def run_cluster(opts: FuzzOptions, copts: ClusterOptions) -> ClusterReport:
    """Run (or with `opts.resume`, continue) a campaign on a cluster."""
    open_database(opts.db, check=True)  # an unreachable Redis fails here, not on every worker
    writer = BatchWriter(opts.results) if opts.results else None
    try:
        return _Driver(opts, copts, writer).run()
    finally:
        if writer is not None:
            writer.close()


def _connect(address: str) -> tuple[Any, Any]:
    """(client, cluster it started or None)."""
    try:
        from distributed import Client
    except ImportError as e:
        raise EnvironmentProblem(f"--cluster needs Dask distributed: pip install "
                                 f"'gpu-alloc-verify[cluster]' ({e})") from e
    if address == "local" or address.startswith("local:"):
        n = int(address.partition(":")[2] or os.cpu_count() or 1)
        cluster = local_cluster(n)
        return Client(cluster), cluster
    try:
        return Client(address, timeout="20s"), None
    except (OSError, TimeoutError) as e:
        raise EnvironmentProblem(f"--cluster {address}: cannot reach the Dask scheduler "
                                 f"({e}); start one with `dask scheduler`") from e


def _workers(client: Any) -> int:
    return len(client.scheduler_info(n_workers=-1).get("workers") or {})


class _Driver:
    def __init__(self, opts: FuzzOptions, copts: ClusterOptions,
                 writer: BatchWriter | None) -> None:
        self.opts, self.copts = opts, copts
        self.start = time.monotonic()
        self.deadline = None if opts.time_budget is None else time.time() + opts.time_budget
        self.id = opts.resume.campaign if opts.resume else new_campaign_id()
        self.writer = writer
        self.ledger: Ledger | None = None
        self.shards: list[Shard] = []
        self.active: set[int] = set()
        self.failed: dict[int, str] = {}
        self.workers = 0
        self.resumed = 0
        self.seeds = 0  # shards per combination
        self._last_tick = 0.0

    # -- the plan -----------------------------------------------------------
    def _plan(self, workers: int) -> list[Shard]:
        opts, copts = self.opts, self.copts
        specs = [lw.spec for lw in opts.lowerings]
        pipelines = copts.pipelines or [opts.pipeline]
        configs = copts.configs or [opts.gen]
        self._check_pipelines(pipelines)
        free = {s for s in specs if s.startswith("xdsl:")}
        # Not the worker count: the programs drawn must not depend on the cluster.
        self.seeds = copts.seeds or default_shards(opts.max_examples)
        shards = plan(opts.seed, specs, pipelines, configs, self.seeds, opts.max_examples, free)
        if copts.seeds is None and len(shards) < workers:
            print(f"note: {len(shards)} shard(s) for {workers} workers; --shards N (seeds "
                  "per lowering, pipeline and configuration) keeps more of them busy",
                  file=sys.stderr)
        return shards

    def _check_pipelines(self, pipelines: list[str]) -> None:
        from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
        from gpu_alloc_verify.verify.lowerings.registry import resolve

        for lw in self.opts.lowerings:
            if not isinstance(lw, MlirOptLowering):
                continue
            for p in dict.fromkeys(pipelines):
                other = resolve(lw.spec, p)
                why = other.pipeline_error() if isinstance(other, MlirOptLowering) else None
                if why is not None:
                    raise UsageError(f"pipeline '{p}' is not one {lw.spec} accepts: "
                                     f"{' '.join(why.split())}")

    def _begin(self, workers: int) -> dict[int, list[dict[str, Any]]]:
        opts = self.opts
        if opts.resume is not None:
            self.shards = [Shard.from_json(s) for s in opts.resume.setting("shards")]
            self.ledger = Ledger(self.writer, self.id, self.shards)
            from gpu_alloc_verify.verify.model.results import read_records

            assert opts.results is not None
            recorded = self.ledger.load(read_records(opts.results))
            self.resumed = self.ledger.tally.examples
            # Each unfinished shard continues from here: it skips what it recorded.
            progress = [self.ledger.progress(s.index) for s in self.shards
                        if s.index not in self.ledger.done]
            self.ledger.write({"kind": "campaign-resume", "campaign": self.id,
                               "recorded": self.resumed, "resumes": opts.resume.resumes + 1,
                               "shards_done": len(self.ledger.done), "progress": progress,
                               "cluster": self.copts.address, "workers": workers,
                               "options": opts.command_options})
            self.ledger.sync()
            return recorded
        self.shards = self._plan(workers)
        self.ledger = Ledger(self.writer, self.id, self.shards)
        self.ledger.write(campaign_start(self.id, opts, gen_to_dict(opts.gen)) | {
            "cluster": self.copts.address, "workers": workers, "shard_count": self.seeds,
            "shards": [s.to_json() for s in self.shards],
        })
        self.ledger.sync()
        return {}

    def _task(self, shard: Shard, queue: str, recorded: list[dict[str, Any]]) -> ShardTask:
        opts = self.opts
        assert self.ledger is not None
        return ShardTask(
            # The shards judge as a local campaign would, `--crosscheck-share`
            # included (it used to be dropped: the default share always).
            campaign=self.id, shard=shard.to_json(), check=opts.check,
            baseline=opts.baseline.spec if opts.baseline else None,
            lowering_timeout=self.copts.lowering_timeout, db=opts.db, shrink=opts.shrink,
            batch_size=opts.batch_size, deadline=self.deadline, queue=queue,
            recorded=recorded, skip=self.ledger.skip(shard.index) if opts.resume else [])

    # -- running ----------------------------------------------------------------
    def run(self) -> ClusterReport:
        if not self.copts.local and self.opts.db and not is_redis(self.opts.db):
            print(f"note: --db {self.opts.db} is a directory: every worker must see it "
                  "at that path (a shared file system), else use --db redis://HOST:PORT/N",
                  file=sys.stderr)
        client, cluster = _connect(self.copts.address)
        try:
            if cluster is None:
                try:
                    client.wait_for_workers(1, timeout=WORKER_WAIT_S)
                except TimeoutError as e:
                    raise EnvironmentProblem(
                        f"--cluster {self.copts.address}: no worker joined in "
                        f"{WORKER_WAIT_S:.0f}s; start some: dask worker "
                        f"{self.copts.address} --nthreads 1") from e
            self.workers = _workers(client)
            recorded = self._begin(self.workers)
            self._stream(client, recorded)
            return self._end()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    def _stream(self, client: Any, recorded: dict[int, list[dict[str, Any]]]) -> None:
        from distributed import Queue, as_completed

        ledger = self.ledger
        assert ledger is not None
        run_id = uuid.uuid4().hex[:8]
        queue = Queue(f"gpu-alloc-verify-{self.id}-{run_id}", client=client)
        todo = [s for s in self.shards if s.index not in ledger.done]
        futures: dict[Any, int] = {}
        for s in todo:
            fut = client.submit(run_shard, self._task(s, queue.name, recorded.get(s.index, [])),
                                key=f"gpu-alloc-verify-{self.id}-s{s.index}-{run_id}",
                                pure=False)  # a dead worker's shard Dask runs again itself
            futures[fut] = s.index
        recorded.clear()
        pending = as_completed(list(futures))
        try:
            while not pending.is_empty():
                done = pending.next_batch(block=False) if pending.has_ready() else []
                batches = queue.get(batch=True)
                for batch in batches:
                    for rec in batch:
                        if ledger.program(rec):
                            self.active.add(rec["shard"])
                ledger.sync()
                for fut in done:
                    self._finish(futures[fut], fut)
                self.tick()
                if not batches and not done:
                    time.sleep(POLL_S)
        except BaseException:
            client.cancel(list(futures))
            raise
        finally:
            queue.close()

    def _finish(self, shard: int, fut: Any) -> None:
        ledger = self.ledger
        assert ledger is not None
        self.active.discard(shard)
        try:
            result = fut.result()
        except Exception as e:  # noqa: BLE001 - a shard's failure is reported, the rest go on
            why = " ".join(f"{type(e).__name__}: {e}".split())[:300]
            self.failed[shard] = why
            print(f"shard {shard} failed: {why}", file=sys.stderr)
            return
        for rec in result.get("tail") or []:
            ledger.program(rec)
        if result.get("diverged"):
            print(f"warning: shard {shard} judged {result['diverged']} program(s) afresh where "
                  "its recorded stream had others (the example database or the generator "
                  "changed since the campaign started)", file=sys.stderr)
        ledger.shard_done(shard, result)

    # -- progress ---------------------------------------------------------------
    def progress(self, final: bool = False) -> ClusterProgress:
        ledger = self.ledger
        assert ledger is not None
        elapsed = time.monotonic() - self.start
        total = sum(s.max_examples for s in self.shards)
        parts = [ledger.tally.examples / max(1, total)]
        if self.opts.time_budget:
            parts.append(elapsed / self.opts.time_budget)
        return ClusterProgress(
            "search", ledger.tally.examples, ledger.tally.examples,
            ledger.written / max(1e-9, elapsed), ledger.violated, elapsed,
            min(1.0, max(parts)), final, shards_done=len(ledger.done),
            shards_total=len(self.shards), shards_active=len(self.active),
            workers=self.workers)

    def tick(self, final: bool = False) -> None:
        if self.opts.progress is None:
            return
        now = time.monotonic()
        if not final and now - self._last_tick < 0.5:
            return
        self._last_tick = now
        self.opts.progress(self.progress(final))

    # -- the end ------------------------------------------------------------------
    def _end(self) -> ClusterReport:
        ledger = self.ledger
        assert ledger is not None
        self.tick(final=True)
        if self.failed:
            where = f"; every finished shard is in {self.opts.results}: fix the cause and " \
                    f"continue with --resume" if self.opts.results else ""
            raise GpuAllocVerifyError(
                f"{len(self.failed)} of {len(self.shards)} shard(s) failed (first: shard "
                f"{min(self.failed)}: {self.failed[min(self.failed)]}){where}")
        opts = self.opts
        self._save_deferred()
        summary_violations = []
        for k, (shard, v) in enumerate(ledger.best_violations()):
            vid = f"{self.id}-v{k}"
            summary_violations.append(dict(v))
            if vid not in ledger.violations_written:
                ledger.write({**v, "kind": "violation", "campaign": self.id, "id": vid,
                              "lowering": shard.lowering, "pipeline": shard.pipeline,
                              "runtime": opts.check.runtime,
                              "solver_timeout_ms": opts.check.timeout_ms,
                              "shard": shard.index})
        stopped = ("time-budget" if any(d.get("stopped_by") == "time-budget"
                                        for d in ledger.done.values()) else "max-examples")
        report = ClusterReport(
            ledger.tally, {}, ledger.coverage, time.monotonic() - self.start,
            dict(ledger.first), self.id, stopped, self.resumed, list(ledger.unknown.values()),
            violation_list=summary_violations, shards=len(self.shards),
            duplicates=ledger.duplicates)
        report.generated = ledger.draws()
        report.baseline = ledger.base
        # `first_seen` drives the exit status: a violation found but not kept by any
        # shard's report (none is expected) still fails the campaign.
        ledger.write({"kind": "campaign-end", "campaign": self.id,
                      "summary": report.summary(), "coverage": ledger.coverage,
                      "stopped_by": stopped, "elapsed": report.elapsed,
                      "shards": len(self.shards), "duplicates": ledger.duplicates,
                      "repeats": ledger.repeats, "draws": report.generated})
        ledger.sync()
        return report

    def _save_deferred(self) -> None:
        """Save what the shards' shrink phases found in the example database,
        now that no shard of this campaign searches any more."""
        assert self.ledger is not None
        saves = self.ledger.db_saves()
        db = open_database(self.opts.db) if saves else None
        if db is None:
            return
        for key, value in saves:
            db.save(key, value)
