"""`order_truth`: the source's edges checked on the lowered run's order log.

Each case drives the real simulator twice, as the source and as a lowering
would (calls at `loc`s named like source ops), and asks which source edges
the second run breaks.
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.invariants.order_truth import broken_edges

Script = Callable[[SimulatedRuntime, int, int], None]


def _run(script: Script) -> SimulatedRuntime:
    rt = SimulatedRuntime("cuda", 0)
    a, b = rt.mem_alloc_sync(64, False), rt.mem_alloc_sync(64, False)
    script(rt, a, b)
    rt.outcome()
    return rt


def _memset(rt: SimulatedRuntime, loc: str, ptr: int, s: int) -> None:
    rt.set_location(loc)
    rt.memset32(ptr, 7, 16, s)


def _broken(src: Script, low: Script, quiet: frozenset[str] = frozenset()) -> list[str]:
    found = broken_edges(_run(src).order, _run(low).order, quiet)
    assert found is not None
    return found


def _in_order(rt: SimulatedRuntime, a: int, b: int) -> None:
    s = rt.stream_create()
    _memset(rt, "op1", a, s)
    _memset(rt, "op2", b, s)


def _inverted(rt: SimulatedRuntime, a: int, b: int) -> None:
    s = rt.stream_create()
    _memset(rt, "op2", b, s)
    _memset(rt, "op1", a, s)


def _two_streams(rt: SimulatedRuntime, a: int, b: int) -> None:
    _memset(rt, "op1", a, rt.stream_create())
    _memset(rt, "op2", b, rt.stream_create())


def _event_between(rt: SimulatedRuntime, a: int, b: int) -> None:
    s1, s2 = rt.stream_create(), rt.stream_create()
    _memset(rt, "op1", a, s1)
    e = rt.event_create()
    rt.event_record(e, s1)
    rt.stream_wait_event(s2, e)
    _memset(rt, "op2", b, s2)


def _host_wait_between(rt: SimulatedRuntime, a: int, b: int) -> None:
    s1 = rt.stream_create()
    _memset(rt, "op1", a, s1)
    rt.set_location("op9")
    rt.stream_synchronize(s1)
    _memset(rt, "op2", b, rt.stream_create())


def test_an_inversion_on_one_stream_breaks_the_token_edge() -> None:
    [why] = _broken(_in_order, _inverted)
    assert "memset of op2 can start before memset of op1 is done" in why
    assert "its token" in why


def test_the_same_order_an_event_or_a_host_wait_keep_it() -> None:
    assert _broken(_in_order, _in_order) == []
    assert _broken(_in_order, _event_between) == []
    assert _broken(_in_order, _host_wait_between) == []


def test_two_unrelated_streams_break_a_token_edge_but_owe_nothing_to_none() -> None:
    assert _broken(_in_order, _two_streams) != []
    assert _broken(_two_streams, _inverted) == []  # the source orders nothing


def test_a_host_wait_orders_later_work_on_another_stream() -> None:
    [why] = _broken(_host_wait_between, _two_streams)
    assert "a host wait" in why


def test_cudas_free_settle_is_no_edge_of_the_source() -> None:
    def freed_between(rt: SimulatedRuntime, a: int, b: int) -> None:
        _memset(rt, "op1", a, rt.stream_create())
        c = rt.mem_alloc_sync(8, False)
        rt.set_location("op5")
        rt.mem_free(c, 0)  # cuda: settles the whole device
        _memset(rt, "op2", b, rt.stream_create())

    # The source's free settles all, yet op1 -> op2 is no source edge: a
    # lowering running op2 first breaks nothing.
    def op2_first(rt: SimulatedRuntime, a: int, b: int) -> None:
        _memset(rt, "op2", b, rt.stream_create())
        _memset(rt, "op1", a, rt.stream_create())

    assert _broken(freed_between, op2_first) == []


def test_host_accesses_of_one_buffer_keep_their_order() -> None:
    def write_then_copy(rt: SimulatedRuntime, a: int, b: int) -> None:
        h = rt.host_alloc(64)
        rt.set_location("op1")
        rt.host_write(h, b"\1\0\0\0")
        rt.set_location("op2")
        rt.memcpy(a, h, 64, rt.stream_create())
        rt.stream_synchronize(0)

    def copy_then_write(rt: SimulatedRuntime, a: int, b: int) -> None:
        h = rt.host_alloc(64)
        s = rt.stream_create()
        rt.set_location("op2")
        rt.memcpy(a, h, 64, s)
        rt.stream_synchronize(s)
        rt.set_location("op1")
        rt.host_write(h, b"\1\0\0\0")

    [why] = _broken(write_then_copy, copy_then_write)
    assert "host order on its buffer" in why
