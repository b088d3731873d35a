"""One shard of a cluster campaign, run as a Dask task on a worker.

`run_shard` runs the shard as a local campaign (`verify.campaign.fuzz.run_fuzz`: the
search, lowering, judging and shrinking all happen here) with no results
file: its program records go to the driver instead, a batch at a time on
the campaign's Dask queue as they are judged, the last ones with the
task's result.  The driver is the only writer of the results file.

A shard is deterministic under its seed: its search reads the example
database as it was when the campaign started, as what the shard's shrink
phase saves is kept apart (`DeferredSaves`) and sent to the driver, which
saves it when the whole campaign ends.  So a shard Dask runs again after its
worker died sends the programs it sent before (the driver keeps the first
of each), and a shard the driver resumes draws its stream again, skipping
the programs recorded (`ShardTask.recorded`, with their draw positions, and
those of its sibling shards, `ShardTask.skip`): it judges only the rest.

Shards of one worker process run one at a time (Hypothesis and the Z3
context are per process), whatever the worker's thread count.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hypothesis.database import ExampleDatabase

from gpu_alloc_verify.verify.campaign.progress import Progress
from gpu_alloc_verify.verify.campaign.shards import Shard, relabel

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.invariants.options import CheckOptions

# Fewer queue puts than this apart would cost the scheduler more than they save.
STREAM_INTERVAL_S = 0.1
_one_at_a_time = threading.Lock()


@dataclass
class ShardTask:
    """Everything a worker needs to run one shard (pickled to it)."""

    campaign: str
    shard: dict[str, Any]  # Shard.to_json()
    check: CheckOptions  # the campaign's (FuzzOptions.check)
    baseline: str | None = None
    lowering_timeout: float | None = None
    db: str | None = None
    shrink: bool = True
    batch_size: int = 100
    deadline: float | None = None  # wall-clock time (time.time()) the campaign stops
    queue: str | None = None  # Dask queue the records stream on (None: all with the result)
    recorded: list[dict[str, Any]] = field(default_factory=list)  # from the results file
    # Programs other shards of its label recorded: the driver writes each once.
    skip: list[str] = field(default_factory=list)


class DeferredSaves(ExampleDatabase):
    """The campaign's example database, read as it is; what this shard saves
    stays here (`saved`) until the driver saves it at the campaign's end, so
    no shard's search ever reads another's fresh counterexamples (its
    programs would then depend on which shard finished first)."""

    def __init__(self, db: ExampleDatabase) -> None:
        super().__init__()
        self.db = db
        self.saved: dict[bytes, set[bytes]] = {}

    def save(self, key: bytes, value: bytes) -> None:
        self.saved.setdefault(key, set()).add(value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        mine = self.saved.get(key, set())
        yield from (v for v in self.db.fetch(key) if v not in mine)
        yield from list(mine)

    def delete(self, key: bytes, value: bytes) -> None:
        self.saved.get(key, set()).discard(value)  # only its own: others' stay

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.delete(src, value)
        self.save(dest, value)

    def to_json(self) -> list[list[str]]:
        return [[k.hex(), v.hex()] for k, vs in sorted(self.saved.items()) for v in sorted(vs)]


class _Stream:
    """Program records of the shard, on their way to the driver."""

    def __init__(self, queue_name: str | None, shard: Shard) -> None:
        self.shard = shard
        self.queue: Any = None
        if queue_name is not None:
            from distributed import Queue, get_client

            self.queue = Queue(queue_name, client=get_client())
        self.buffer: list[dict[str, Any]] = []
        self.sent = 0
        # Draws of the recorded prefix of its stream (a resumed shard): a stable
        # stream judges none of them again.
        self.resumed_draws = 0
        self.diverged = 0
        self._last = 0.0

    def record(self, rec: dict[str, Any]) -> None:
        if rec.get("kind") != "program":
            return  # campaign-start, violations, campaign-end: the driver writes its own
        out: dict[str, Any] = {k: rec[k] for k in ("program", "draw", "features", "results",
                                                    "found") if k in rec}
        out = relabel(out, self.shard.lowering, self.shard.label)
        out["shard"] = self.shard.index
        if isinstance(out.get("draw"), int) and out["draw"] < self.resumed_draws:
            self.diverged += 1  # judged afresh where the stream was recorded
        self.buffer.append(out)

    def progress(self, p: Progress) -> None:
        # Called after every judged batch (and at most twice a second otherwise).
        now = time.monotonic()
        if self.queue is not None and self.buffer and now - self._last >= STREAM_INTERVAL_S:
            self.queue.put(self.buffer)
            self.sent += len(self.buffer)
            self.buffer = []
            self._last = now

    def rest(self) -> list[dict[str, Any]]:
        rest, self.buffer = self.buffer, []
        return rest

    def close(self) -> None:
        if self.queue is not None:
            self.queue.close()  # the driver's reference keeps the queue


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "in-process"


def _resolve(spec: str, pipeline: str, timeout: float | None) -> Any:
    from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    lowering = resolve(spec, pipeline)
    if timeout is not None and isinstance(lowering, MlirOptLowering):
        lowering.timeout_s = timeout
    return lowering


def run_shard(task: ShardTask) -> dict[str, Any]:
    """Run one shard; its summary, violations and last records."""
    with _one_at_a_time:
        return _run(task)


def _run(task: ShardTask) -> dict[str, Any]:
    from gpu_alloc_verify.verify import smt
    from gpu_alloc_verify.verify.campaign.example_db import open_database, shared_databases
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
    from gpu_alloc_verify.verify.campaign.resume import ResumeState

    smt.skip_argument_checks()  # as in verify.campaign.parallel's workers
    shard = Shard.from_json(task.shard)
    base = {"shard": shard.index, "worker": _worker_address(), "pid": os.getpid()}
    budget = None if task.deadline is None else task.deadline - time.time()
    if budget is not None and budget <= 0:
        return {**base, "sent": 0, "tail": [], "examples": len(task.recorded),
                "resumed": len(task.recorded), "stopped_by": "time-budget", "elapsed": 0.0,
                "violations": [], "draws": 0, "diverged": 0, "db_saves": []}
    stream = _Stream(task.queue, shard)
    resume = None
    if task.recorded or task.skip:
        programs = [relabel(r, shard.label, shard.lowering) for r in task.recorded]
        resume = ResumeState(f"{task.campaign}-s{shard.index}", {},
                             {r["program"] for r in programs} | set(task.skip), programs)
        stream.resumed_draws = 1 + max((r["draw"] for r in task.recorded
                                        if isinstance(r.get("draw"), int)), default=-1)
    stored = open_database(task.db)
    database = DeferredSaves(stored) if stored is not None else None
    opts = FuzzOptions(
        lowerings=[_resolve(shard.lowering, shard.pipeline, task.lowering_timeout)],
        check=task.check, max_examples=shard.max_examples,
        time_budget=budget, seed=shard.seed, db=task.db,
        pipeline=shard.pipeline, gen=shard.gen(), batch_size=task.batch_size,
        shrink=task.shrink, progress=stream.progress,
        baseline=(_resolve(task.baseline, shard.pipeline, task.lowering_timeout)
                  if task.baseline else None),
        jobs=1, resume=resume,
        record_sink=stream.record, database=database,
    )
    # Shards running side by side must not delete each other's examples.
    try:
        with shared_databases(), warnings.catch_warnings():
            # The worker's own threads (heartbeats, comms) use the `random` module
            # while a program is drawn; Hypothesis would blame the strategy.
            warnings.filterwarnings("ignore", message="Do not use the `random` module")
            report = run_fuzz(opts)
    finally:
        stream.close()
    violations = []
    for found in report.found.values():
        v = found.to_json()
        v["lowering"] = shard.label
        violations.append(v)
    if stream.diverged:
        print(f"shard {shard.index}: {stream.diverged} program(s) of its recorded draws "
              "differ from the recording (example database or generator changed?)",
              file=sys.stderr)
    return {**base, "sent": stream.sent, "tail": stream.rest(),
            "examples": report.tally.examples, "resumed": report.resumed,
            "stopped_by": report.stopped_by, "elapsed": report.elapsed,
            "violations": violations, "draws": report.generated or 0,
            "diverged": stream.diverged,
            "db_saves": database.to_json() if database is not None else []}
