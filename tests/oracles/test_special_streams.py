"""The checking runtime's special stream handles (`Profile.special_streams`,
read from `verify.model.runtime_api.PROFILES`): cuda's CU_STREAM_LEGACY (1)
and CU_STREAM_PER_THREAD (2), hip's hipStreamPerThread (2), none on sycl.
A stream to every call but a destroy, never an event, a queue of its own.
The simulator, a replayed native trace and a native run of case 102 agree."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.mgpu_calls import RawCall
from gpu_alloc_verify.oracles.replay import replay
from gpu_alloc_verify.oracles.runtime import HOST_RACE, INVALID_HANDLE, NULL_STREAM, PROFILES
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.model.runtime_api import PROFILES as API_PROFILES


def _kinds(rt: SimulatedRuntime) -> list[str]:
    return [e.kind for e in rt.errors]


def test_the_profiles_are_the_analysis_table() -> None:
    assert {k: p.special_streams for k, p in PROFILES.items()} == {
        k: p.special_streams for k, p in API_PROFILES.items()}
    assert PROFILES["cuda"].special_streams == {1, 2}
    assert PROFILES["hip"].special_streams == {2}
    assert PROFILES["sycl"].special_streams == frozenset()


@pytest.mark.parametrize(("profile", "stream", "ok"), [
    ("cuda", 1, True), ("cuda", 2, True), ("cuda", 3, False), ("cuda", 7, False),
    ("cuda", 0x10, False), ("hip", 1, False), ("hip", 2, True), ("sycl", 1, False),
    ("sycl", 2, False),
])
def test_a_small_integer_stream_is_taken_where_the_profile_defines_it(
        profile: str, stream: int, ok: bool) -> None:
    rt = SimulatedRuntime(profile)
    buf = rt.host_alloc(16, "managed")  # host-readable on every profile (hip's is not)
    e = rt.event_create()
    rt.stream_synchronize(stream)  # before any work on it
    rt.memset32(buf, 7, 4, stream)
    rt.event_record(e, stream)
    rt.stream_wait_event(stream, e)
    rt.stream_synchronize(stream)
    data = rt.host_read(buf, 4)
    if ok:
        assert rt.errors == [] and data == b"\x07\x00\x00\x00"
    else:
        assert _kinds(rt) == [INVALID_HANDLE] * 5, rt.errors
        assert data != b"\x07\x00\x00\x00"  # the memset was refused


@pytest.mark.parametrize("stream", [1, 2])
def test_a_special_stream_cannot_be_destroyed_and_stays_usable(stream: int) -> None:
    rt = SimulatedRuntime("cuda")
    buf = rt.mem_alloc(16, 0, True)
    rt.memset32(buf, 7, 4, stream)
    rt.stream_destroy(stream)
    rt.stream_synchronize(stream)
    assert _kinds(rt) == [INVALID_HANDLE]
    assert "own stream" in rt.errors[0].detail
    assert rt.host_read(buf, 4) == b"\x07\x00\x00\x00"
    assert rt.outcome().live_streams == []  # it is no handle of the program's


@pytest.mark.parametrize("stream", [1, 2])
def test_a_special_stream_is_no_event(stream: int) -> None:
    rt = SimulatedRuntime("cuda")
    rt.event_synchronize(stream)
    rt.event_record(stream, 0)
    rt.event_destroy(stream)
    assert _kinds(rt) == [INVALID_HANDLE] * 3


@pytest.mark.parametrize("other", [0, 1, 2])
def test_each_special_stream_is_a_queue_of_its_own(other: int) -> None:
    """Work on CU_STREAM_LEGACY is not ordered by a synchronize of the null
    stream or of another special one (created streams are non-blocking)."""
    rt = SimulatedRuntime("cuda")
    buf = rt.mem_alloc(16, 0, True)
    stream = 2 if other == 1 else 1
    rt.memset32(buf, 7, 4, stream)
    rt.stream_synchronize(other)
    rt.host_read(buf, 4)
    assert _kinds(rt) == [HOST_RACE]


def test_sycl_still_refuses_the_null_queue() -> None:
    rt = SimulatedRuntime("sycl")
    rt.stream_synchronize(0)
    assert _kinds(rt) == [NULL_STREAM]


def test_a_native_trace_with_the_legacy_stream_replays() -> None:
    """The shim logs 0x1 as it is; replay does not translate it (no handle
    the native run made) and the profile judges it."""
    raw = [RawCall("mgpuMemAlloc", (16, 0, 1), "ipi", 0x7F00),
           RawCall("mgpuMemset32", (0x7F00, 5, 4, 1), "piip", None),
           RawCall("mgpuStreamSynchronize", (1,), "p", None),
           RawCall("mgpuStreamDestroy", (1,), "p", None)]
    cuda = replay(raw, SimulatedRuntime("cuda")).outcome
    assert [e.kind for e in cuda.errors] == [INVALID_HANDLE]  # the destroy only
    assert cuda.allocations[0].contents == "05000000*4"
    sycl = replay(raw, SimulatedRuntime("sycl")).outcome
    assert [e.kind for e in sycl.errors] == [INVALID_HANDLE] * 3


@pytest.mark.parametrize(("section", "profile", "errors"), [
    ("twin", "cuda", []), ("bug", "cuda", ["op6"]), ("twin:per-thread", "cuda", []),
    ("twin", "sycl", ["op5", "op6"]), ("twin:per-thread", "hip", []),
])
def test_case_102_runs_natively_as_the_interpreter_does(section: str, profile: str,
                                                        errors: list[str]) -> None:
    """The shim takes the special streams like any pointer; the native trace,
    replayed on the profile, gives the interpreter's verdict."""
    from gpu_alloc_verify.verify.invariants.ground_truth import execute
    from gpu_alloc_verify.verify.invariants.native_truth import _native_runner, run_natively
    from gpu_alloc_verify.verify.source.to_program import program_from_text
    from tests.builders import DECLS, generic
    from tests.soundness.test_adversarial import sections

    if isinstance(_native_runner(), str):
        pytest.skip(_native_runner())
    s = sections("102_legacy_stream_handle")
    program = program_from_text(s["source"])
    text = generic("module {\n" + s[section] + DECLS + "}\n")
    ex = execute(program, text, "main", {}, profile)
    nat = run_natively(program, ex, text, profile)
    assert not isinstance(nat, str), nat
    for run in (ex, nat):
        assert run.lowered is not None and run.lowered.outcome is not None
        bad = [e for e in run.lowered.outcome.errors if e.kind == INVALID_HANDLE]
        assert [e.loc for e in bad] == errors, run.lowered.outcome.errors
