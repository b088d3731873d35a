"""The simulated runtime declines a run whose ordering work grows without
bound, instead of taking the process's memory: a loop that makes a stream a
round (a witness with a trip count of 2**40 did, in CI) queues work that is
either ordered after every earlier stream (vector clocks grow) or after none
(every op is compared with every pending one, each clash an error record)."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.runtime import DEVICE_RACE
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.model import budget


def _unordered_rounds(rt: SimulatedRuntime, rounds: int) -> None:
    buf = rt.mem_alloc_sync(64, False)
    for _ in range(rounds):
        rt.memset32(buf, 1, 16, rt.stream_create())  # a fresh stream, no wait


def _chained_rounds(rt: SimulatedRuntime, rounds: int) -> None:
    buf = rt.mem_alloc_sync(64, False)
    stream = rt.stream_create()
    for _ in range(rounds):
        event = rt.event_create()
        rt.event_record(event, stream)
        stream = rt.stream_create()
        rt.stream_wait_event(stream, event)  # after every stream before it
        rt.memset32(buf, 1, 16, stream)


def test_unordered_streams_race_and_are_reported_under_the_cap() -> None:
    rt = SimulatedRuntime("cuda", seed=0, eagerness=0.0)
    _unordered_rounds(rt, 30)
    assert any(e.kind == DEVICE_RACE for e in rt.errors)


def test_unordered_streams_past_the_cap_decline_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "SIMULATED_MAX_RACE_PAIRS", 100)
    rt = SimulatedRuntime("cuda", seed=0, eagerness=0.0)
    with pytest.raises(budget.TooMuchOrderToSimulate, match="unordered pairs"):
        _unordered_rounds(rt, 30)


def test_streams_ordered_after_all_before_them_past_the_cap_decline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _chained_rounds(SimulatedRuntime("cuda", seed=0, eagerness=0.0), 30)  # under the cap: runs
    monkeypatch.setattr(budget, "SIMULATED_MAX_CLOCK_ENTRIES", 100)
    with pytest.raises(budget.TooMuchOrderToSimulate, match="stream orderings"):
        _chained_rounds(SimulatedRuntime("cuda", seed=0, eagerness=0.0), 30)
