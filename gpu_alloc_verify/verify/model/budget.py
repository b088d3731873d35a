"""The time one file's check may take (`check --time-limit S`).

Two ways a stage learns the time is up:
- cooperatively: a loop that may run long (the interpreters' steps) calls
  `check_time(stage)`, which raises `OutOfTime` (an `Exception`: the stage
  turns it into an `unknown` naming the budget, the other verdicts stand);
- as a backstop, for a stage with no such loop (an analysis, a solver, a
  tool): `time_limit` arms SIGALRM a little after the deadline, and the
  handler raises `TimeLimitReached` (a `BaseException`, so no stage's
  `except Exception` takes it for its own failure); `verify.campaign.
  check_file` makes every verdict still open on that lowering `unknown`.

One limit at a time, per process (the CLI checks files one after another).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

# The backstop fires this long after the deadline: the cooperative checks
# get the first chance, and keep the verdicts already decided.
BACKSTOP_GRACE_S = 2.0

_deadline: float | None = None
_limit: float | None = None


class OutOfTime(Exception):  # noqa: N818 - it reads as the condition, in words
    """The time limit ran out inside a stage; `str()` says which, in words."""


class TimeLimitReached(BaseException):  # noqa: N818
    """The backstop: the time limit ran out and the stage did not stop."""


# The most bytes one simulated allocation holds: past it a run is declined,
# not made (a static memref of 10^9 elements would take minutes to zero).
SIMULATED_MAX_BYTES = 256 << 20


class TooLargeToSimulate(InterpreterDeclined):  # noqa: N818
    """An allocation past SIMULATED_MAX_BYTES: that run is declined."""

    def __init__(self, size: int) -> None:
        super().__init__(f"an allocation of {size} bytes, more than the "
                         f"{SIMULATED_MAX_BYTES >> 20} MiB a simulated run holds")


# The most vector-clock entries one simulated run keeps (each queued op's
# clock names every stream it is ordered after): a loop that makes a stream
# per round grows them quadratically, to gigabytes within the step limit.
SIMULATED_MAX_CLOCK_ENTRIES = 2_000_000
# The most (op, pending op) pairs the race detector compares in one run: ops
# on streams never ordered with each other are all pairwise unordered.
SIMULATED_MAX_RACE_PAIRS = 2_000_000


class TooMuchOrderToSimulate(TooLargeToSimulate):
    """Past SIMULATED_MAX_CLOCK_ENTRIES: that run is declined."""

    def __init__(self, ops: int) -> None:
        InterpreterDeclined.__init__(
            self, f"{ops} GPU operations ordered across more streams than a simulated run "
            f"follows ({SIMULATED_MAX_CLOCK_ENTRIES} stream orderings, "
            f"{SIMULATED_MAX_RACE_PAIRS} unordered pairs)")


def limit_words(stage: str) -> str:
    """The reason an `unknown` gives when the limit ran out in `stage`."""
    return f"the time limit of {_limit or 0:g} s per file (--time-limit) ran out in {stage}"


def expired() -> bool:
    """Whether a limit is set and its deadline has passed."""
    return _deadline is not None and time.monotonic() > _deadline


def check_time(stage: str) -> None:
    """Raise OutOfTime, naming `stage`, when the limit has run out."""
    if _deadline is not None and time.monotonic() > _deadline:
        raise OutOfTime(limit_words(stage))


def time_left() -> float | None:
    """Seconds to the deadline (0 when past); None without a limit."""
    return None if _deadline is None else max(0.0, _deadline - time.monotonic())


# The stage a module belongs to, by its name's prefix (most specific first).
_STAGES = (
    ("gpu_alloc_verify.verify.invariants.solver", "the solver"),
    ("gpu_alloc_verify.verify.smt", "the solver"),
    ("gpu_alloc_verify.verify.invariants.witness", "the execution cross-check"),
    ("gpu_alloc_verify.verify.invariants.ground_truth", "the execution cross-check"),
    ("gpu_alloc_verify.verify.invariants", "the analysis"),
    ("gpu_alloc_verify.verify.extract", "reading the lowered code's calls"),
    ("gpu_alloc_verify.verify.source", "reading the source"),
    ("gpu_alloc_verify.verify.ir", "reading the IR"),
    ("gpu_alloc_verify.verify.tools", "a run of mlir-opt"),
    ("gpu_alloc_verify.verify.lowerings", "the lowering"),
    ("gpu_alloc_verify.oracles", "the interpreters"),
    ("gpu_alloc_verify.reports", "the report"),
)


def stage_of(frame: FrameType | None) -> str:
    """The stage the innermost frame of this package is in, in words."""
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        for prefix, words in _STAGES:
            if module.startswith(prefix):
                return words
        frame = frame.f_back
    return "the check"


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise TimeLimitReached(limit_words(stage_of(frame)))


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Run the body under a limit of `seconds` (None or 0: none)."""
    global _deadline, _limit
    if not seconds or seconds <= 0:
        yield
        return
    outer = (_deadline, _limit)
    _deadline, _limit = time.monotonic() + seconds, seconds
    armed = threading.current_thread() is threading.main_thread()
    previous = None
    if armed:  # signals reach the main thread only
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds + BACKSTOP_GRACE_S)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _deadline, _limit = outer
