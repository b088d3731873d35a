"""The simulated runtime: lazy streams, events, races, handle checks, profiles."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.runtime import (
    DEVICE_RACE,
    DOUBLE_DESTROY,
    DOUBLE_FREE,
    HOST_ACCESS_DEVICE_MEMORY,
    HOST_RACE,
    INVALID_HANDLE,
    NULL_STREAM,
    USE_AFTER_DESTROY,
    USE_AFTER_FREE,
    Runtime,
    encode_contents,
)
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime


def kinds(rt: SimulatedRuntime) -> list[str]:
    return [e.kind for e in rt.errors]


def test_implements_the_protocol():
    assert isinstance(SimulatedRuntime(), Runtime)


def test_work_runs_lazily_and_synchronize_forces_it():
    rt = SimulatedRuntime("cuda", seed=0)
    s = rt.stream_create()
    buf = rt.mem_alloc(16, s, True)
    rt.memset32(buf, 5, 4, s)
    assert rt.pending, "seed 0 never runs work early"
    rt.stream_synchronize(s)
    assert rt.host_read(buf, 4) == b"\x05\x00\x00\x00"
    assert rt.errors == []


def test_host_read_of_pending_write_is_a_race_and_sees_the_old_state():
    rt = SimulatedRuntime("cuda", seed=0)
    s = rt.stream_create()
    buf = rt.mem_alloc(16, s, True)
    rt.host_write(buf, b"\x01\x00\x00\x00")
    rt.set_location("op7")
    rt.memset32(buf, 5, 4, s)
    rt.set_location("op9")
    assert rt.host_read(buf, 4) == b"\x01\x00\x00\x00"
    (err,) = rt.errors
    assert (err.kind, err.loc) == (HOST_RACE, "op9")
    assert "op7" in err.detail


def test_events_order_streams_and_unordered_conflicts_are_device_races():
    rt = SimulatedRuntime("cuda", seed=0)
    a, b = rt.stream_create(), rt.stream_create()
    buf = rt.mem_alloc(16, a, False)
    rt.memset32(buf, 1, 4, a)
    e = rt.event_create()
    rt.event_record(e, a)
    rt.stream_wait_event(b, e)
    rt.memset32(buf, 2, 4, b)  # ordered after the first memset: fine
    assert rt.errors == []
    rt.memset32(buf, 3, 4, a)  # not ordered with the memset on b
    assert kinds(rt) == [DEVICE_RACE]


@pytest.mark.parametrize("seed", range(6))
def test_every_schedule_respects_stream_and_event_order(seed):
    rt = SimulatedRuntime("cuda", seed=seed)
    a, b = rt.stream_create(), rt.stream_create()
    src = rt.mem_alloc(16, a, False)
    dst = rt.mem_alloc(16, b, True)
    rt.memset32(src, 7, 4, a)
    e = rt.event_create()
    rt.event_record(e, a)
    rt.stream_wait_event(b, e)
    rt.memcpy(dst, src, 16, b)
    rt.stream_synchronize(b)
    assert rt.host_read(dst, 16) == b"\x07\x00\x00\x00" * 4
    assert rt.errors == []


def test_seeds_give_different_schedules():
    orders = set()
    for seed in range(1, 12):
        rt = SimulatedRuntime("cuda", seed=seed)
        streams = [rt.stream_create() for _ in range(3)]
        bufs = [rt.mem_alloc(4, s, False) for s in streams]
        for i, (s, buf) in enumerate(zip(streams, bufs, strict=True)):
            rt.set_location(f"op{i}")
            rt.memset32(buf, 1, 1, s)
        rt.outcome()
        orders.add(tuple(rt.executed))
    assert len(orders) > 1


def test_handle_misuse_is_recorded_not_raised():
    rt = SimulatedRuntime("cuda")
    s = rt.stream_create()
    rt.stream_destroy(s)
    rt.stream_synchronize(s)
    rt.stream_destroy(s)
    rt.stream_synchronize(0xDEAD)
    e = rt.event_create()
    rt.event_record(e, rt.stream_create())
    rt.event_destroy(e)
    rt.event_synchronize(e)
    rt.stream_wait_event(s, e)  # a stream used as is, an event passed as stream
    rt.event_record(s, e)
    assert kinds(rt) == [
        USE_AFTER_DESTROY, DOUBLE_DESTROY, INVALID_HANDLE, USE_AFTER_DESTROY,
        USE_AFTER_DESTROY, USE_AFTER_DESTROY, INVALID_HANDLE, INVALID_HANDLE,
    ]


def test_memory_misuse_is_recorded():
    rt = SimulatedRuntime("cuda")
    s = rt.stream_create()
    buf = rt.mem_alloc(8, s, False)
    rt.mem_free(buf, s)
    rt.mem_free(buf, s)
    rt.memset32(buf, 1, 2, s)
    assert kinds(rt) == [DOUBLE_FREE, USE_AFTER_FREE]


@pytest.mark.parametrize(
    ("profile", "shared_kind", "device_kind"),
    [("cuda", "managed", "device"), ("hip", "device", "device"), ("sycl", "managed", "managed")],
)
def test_profiles_decide_the_memory_kind(profile, shared_kind, device_kind):
    rt = SimulatedRuntime(profile)
    rt.mem_alloc(4, 0, True)
    rt.mem_alloc_sync(4, False)
    assert [a.kind for a in rt.outcome().allocations] == [shared_kind, device_kind]


def test_host_access_to_device_memory_is_an_error():
    rt = SimulatedRuntime("hip")
    buf = rt.mem_alloc(4, 0, True)  # hip ignores host_shared
    assert rt.host_read(buf, 4) is None
    assert kinds(rt) == [HOST_ACCESS_DEVICE_MEMORY]


def test_sycl_free_dereferences_the_queue():
    for profile, expected in (("cuda", []), ("hip", []), ("sycl", [NULL_STREAM])):
        rt = SimulatedRuntime(profile)
        buf = rt.mem_alloc(4, 0, False)  # a null stream is fine for alloc everywhere
        rt.mem_free(buf, 0)
        assert kinds(rt) == expected, profile
        assert rt.outcome().allocations[0].live == (profile == "sycl")


def test_sycl_free_does_not_wait_for_the_stream():
    rt = SimulatedRuntime("sycl")
    s = rt.stream_create()
    buf = rt.mem_alloc(16, s, False)
    rt.memset32(buf, 1, 4, s)
    rt.mem_free(buf, s)
    assert HOST_RACE in kinds(rt)
    rt.stream_synchronize(s)
    assert USE_AFTER_FREE in kinds(rt)  # the queued memset ran on freed memory


def test_split_api_free_async_is_stream_ordered():
    rt = SimulatedRuntime("cuda")
    s = rt.stream_create()
    buf = rt.mem_alloc_async(16, s, False)
    rt.memset32(buf, 1, 4, s)
    rt.mem_free_async(buf, s)
    rt.stream_synchronize(s)
    assert rt.errors == []
    assert not rt.outcome().allocations[0].live


def test_outcome_accounts_for_leaks_and_contents():
    rt = SimulatedRuntime("cuda")
    rt.set_location("op1")
    s = rt.stream_create()
    rt.set_location("op2")
    buf = rt.mem_alloc(8, s, True)
    rt.memset16(buf, 0x4000, 2, s)
    rt.event_create()
    out = rt.outcome()
    assert out.live_streams == ["stream@op1#0"]
    assert len(out.live_events) == 1
    (alloc,) = out.allocations
    assert (alloc.label, alloc.live, alloc.contents) == ("op2#0", True, "00400040,????????")


def test_encode_contents():
    assert encode_contents(b"\x05\x00\x00\x00" * 3) == "05000000*3"
    assert encode_contents(b"\x01\x02\x03", b"\x01\x00\x01") == "01,??,03"
    assert encode_contents(b"") == "empty"


def test_adjacent_allocations_resolve_to_the_one_pointed_into():
    from gpu_alloc_verify.oracles.checked import Allocation

    rt = SimulatedRuntime("cuda")
    rt.allocations = [Allocation(0, 0x2000, 16, "managed", "b"),
                      Allocation(1, 0x1FF0, 16, "managed", "a")]  # a ends where b starts
    found = rt.find(0x2000)
    assert found is not None and found.label == "b"
    found = rt.find(0x2010)
    assert found is not None and found.label == "b"  # one past the end
