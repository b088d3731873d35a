"""The one place worker processes are started: forked process pools, and
Dask's local cluster for `fuzz --cluster local:N`.

Workers are forked: they start with the harness imported (lowerings, xDSL,
Z3), and nothing is pickled but the work and its answer.

- `map_on_workers`: `[func(x) for x in items]` on a pool kept across calls
  (a campaign maps many batches) and shut down at exit (`shutdown`).
- `each_on_workers`: calls on a pool of their own, each answer handed back
  as it is done (a progress line per answer).
- `detach_worker`: what a long-lived worker does first (dies with its
  parent, leaves Ctrl-C to it).
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Initializer = Callable[[], None]
_pools: dict[tuple[int, Initializer | None], ProcessPoolExecutor] = {}
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _fork_pool(jobs: int, initializer: Initializer | None = None) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=initializer)


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when its parent dies, so a killed
    campaign leaves no worker waiting on its queue forever (holding the
    campaign's stdout open)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: shutdown() at exit still stops the workers
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def detach_worker() -> None:
    """A worker's first step: die with the parent; ignore Ctrl-C, which
    reaches the whole process group: the parent handles it (records what it
    has, shuts the pool down) while workers finish their share."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def map_on_workers(func: Callable[[T], R], items: Sequence[T], jobs: int,
                   initializer: Initializer | None = None) -> list[R]:
    """`[func(x) for x in items]` on `jobs` workers kept for the next call
    (in this process when jobs is 1 or there is one item).  BrokenProcessPool
    when a worker died (killed, out of memory); the next call starts afresh."""
    if jobs <= 1 or len(items) <= 1:
        return [func(x) for x in items]
    key = (jobs, initializer)
    pool = _pools.get(key)
    if pool is None:
        pool = _pools[key] = _fork_pool(jobs, initializer)
    try:
        return list(pool.map(func, items))
    except BrokenProcessPool:
        _pools.pop(key, None)
        raise


def shutdown() -> None:
    """Stop the kept workers (they are started again when needed)."""
    for pool in _pools.values():
        pool.shutdown(wait=True, cancel_futures=True)
    _pools.clear()


atexit.register(shutdown)


def each_on_workers(calls: Sequence[Callable[[], R]], jobs: int,
                    done: Callable[[int, R], None]) -> None:
    """Run each call (picklable: a module-level function or a partial of one)
    on a pool of `min(jobs, len(calls))` workers; `done(index, answer)` as each
    finishes.  A call that raises stops the rest and raises here."""
    pool = _fork_pool(min(jobs, len(calls)))
    try:
        futures: dict[Future[R], int] = {pool.submit(call): k for k, call in enumerate(calls)}
        for fut in as_completed(futures):
            done(futures[fut], fut.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def local_cluster(workers: int) -> Any:
    """A Dask `LocalCluster` of single-threaded worker processes (Dask
    distributed must be installed; the caller checks)."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.ERROR)
