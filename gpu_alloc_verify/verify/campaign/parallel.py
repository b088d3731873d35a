"""Judging a batch on several worker processes.

`check_batch_parallel` gives what `verify.invariants.pipeline.check_batch` gives, in the
same order, with the work spread over `jobs` forked processes.  Workers take
shares of the programs, largest first (see `shares`), and lower each share
in one batch per lowering, so an external `mlir-opt` still starts
once per share, not once per program; each worker is its own process, so it
builds its Z3 terms in its own context and keeps its own incremental solver.

Workers are forked at first use: they inherit the imported harness, and
nothing is pickled but programs, lowerings and verdicts.  The pool
(`verify.tools.pool`) lives across calls (a campaign judges many batches)
and is shut down at exit;
`shutdown()` makes the next call fork afresh (after changing what workers
should inherit).  Workers run Z3 without its Python-side argument asserts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, check_batch
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.model.machine import default_jobs
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.tools import pool
from gpu_alloc_verify.verify.tools.pool import shutdown

__all__ = ["MIN_SHARE", "check_batch_parallel", "map_shares", "shares", "shutdown"]

T = TypeVar("T")
R = TypeVar("R")

# Each mlir-opt start costs about as much as lowering 15 programs, so a share
# is never smaller than MIN_SHARE programs.
MIN_SHARE = 50


def _worker_init() -> None:
    pool.detach_worker()
    # Z3's Python API checks its arguments with `__debug__`-style asserts on
    # every call (off under `python -O`); the harness's terms are well-sorted
    # by construction, and the checks are ~20% of building them.
    smt.skip_argument_checks()


def shares(n: int, jobs: int) -> list[list[int]]:
    """Indices 0..n-1 in shares for `jobs` workers, largest first.

    Guided self-scheduling: each share takes 1/(2*jobs) of what is left, but
    never fewer than MIN_SHARE, so the last shares are small and the worker
    that finishes last waits on little.  The indices are shuffled (a fixed
    seed) before they are cut, so each share mixes program sizes; each share
    is sorted.  Every worker gets a share when there are programs enough."""
    if n == 0:
        return []
    if jobs <= 1:
        return [list(range(n))]
    if n < jobs * MIN_SHARE:
        count = min(jobs, n)
        return [list(range(k, n, count)) for k in range(count)]
    sizes: list[int] = []
    left = n
    while left:
        size = max(MIN_SHARE, -(-left // (2 * jobs)))
        if left - size < MIN_SHARE:
            size = left  # no share under MIN_SHARE
        sizes.append(size)
        left -= size
    sizes.sort(reverse=True)  # a merged remainder goes early, not last
    order = list(range(n))
    random.Random(0).shuffle(order)
    out: list[list[int]] = []
    pos = 0
    for size in sizes:
        out.append(sorted(order[pos:pos + size]))
        pos += size
    return out


def map_shares(func: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """`[func(x) for x in items]` on the worker pool (in this process when
    jobs is 1 or there is one item)."""
    return pool.map_on_workers(func, items, jobs, _worker_init)


def _judge_share(args: tuple[Any, ...]) -> list[dict[str, Judgement]]:
    programs, lowerings, options, parser = args
    return check_batch(programs, lowerings, options, parser)


def check_batch_parallel(programs: Sequence[Program], lowerings: Sequence[Lowering],
                         options: CheckOptions, jobs: int | None = None,
                         parser: str | None = None) -> list[dict[str, Judgement]]:
    """`check_batch` on `jobs` processes (default: one per core)."""
    jobs = jobs or default_jobs()
    parts = shares(len(programs), jobs)
    if jobs <= 1 or len(parts) <= 1:
        return check_batch(programs, lowerings, options, parser)
    tasks = [([programs[i] for i in idx], list(lowerings), options, parser) for idx in parts]
    table: list[dict[str, Judgement]] = [{} for _ in programs]
    for idx, rows in zip(parts, map_shares(_judge_share, tasks, jobs), strict=True):
        for i, row in zip(idx, rows, strict=True):
            table[i] = row
    return table
