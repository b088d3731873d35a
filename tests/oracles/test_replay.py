"""A native run's calls replayed on the checking runtime."""

from __future__ import annotations

from gpu_alloc_verify.oracles.mgpu_calls import RawCall
from gpu_alloc_verify.oracles.replay import replay
from gpu_alloc_verify.oracles.runtime import DOUBLE_DESTROY, INVALID_HANDLE, USE_AFTER_DESTROY
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

S, E, M = 0x55D0, 0x66E0, 0x7F00


def test_handles_are_translated_and_their_lives_judged():
    raw = [
        RawCall("mgpuStreamCreate", (), "", S),
        RawCall("mgpuMemAlloc", (64, S, 0), "ipi", M),
        RawCall("mgpuMemset32", (M + 4, 5, 3, S), "piip", None),  # inside the allocation
        RawCall("mgpuStreamSynchronize", (S,), "p", None),
        RawCall("mgpuStreamDestroy", (S,), "p", None),
        RawCall("mgpuStreamSynchronize", (S,), "p", None),
        RawCall("mgpuStreamDestroy", (S,), "p", None),
        RawCall("mgpuEventCreate", (), "", E),
    ]
    done = replay(raw, SimulatedRuntime(), locs=[f"op{k}" for k in range(len(raw))])
    kinds = [(e.kind, e.loc) for e in done.outcome.errors]
    assert (USE_AFTER_DESTROY, "op5") in kinds and (DOUBLE_DESTROY, "op6") in kinds
    assert not any(k == INVALID_HANDLE for k, _ in kinds)  # every handle was translated
    assert done.outcome.live_streams == [] and len(done.outcome.live_events) == 1
    assert done.outcome.allocations[0].contents is not None  # the memset landed in it


def test_an_event_passed_where_a_stream_is_expected_is_invalid():
    raw = [RawCall("mgpuEventCreate", (), "", E),
           RawCall("mgpuStreamSynchronize", (E,), "p", None),
           RawCall("launch", (1, 1, 1, 1, 1, 1, E), "iiiiiip", None)]
    done = replay(raw, SimulatedRuntime())
    assert [e.kind for e in done.outcome.errors] == [INVALID_HANDLE]
    assert done.skipped == ["a kernel launch (not performed)"]
