"""What this machine gives the harness: the cores it may run on.

At the bottom of the layers so that every stage that starts workers (the
campaign, the report's lit proofs) counts them the same way."""

from __future__ import annotations

import os


def default_jobs() -> int:
    """One worker per core this process may run on: the affinity mask (taskset,
    a cgroup cpuset) where the OS has one, not every core of the machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows: no affinity call
        return os.cpu_count() or 1


def resolve_jobs(jobs: int | None) -> int:
    """`-j N` as a worker count: 0 (or not given) is one per available core."""
    return jobs if jobs is not None and jobs > 0 else default_jobs()
