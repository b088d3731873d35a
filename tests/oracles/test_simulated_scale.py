"""The simulated runtime at scale: its scheduler and race detector are near
linear, and behave exactly as the simple quadratic implementation did.

`_ReferenceSimulatedRuntime` below is that quadratic implementation, kept only
to pin behaviour: for the same program, seed and eagerness the fast runtime
must record the same errors (same texts, same order), run the same work in the
same order and draw the same random numbers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_alloc_verify.oracles.checked import Allocation, CheckedRuntime
from gpu_alloc_verify.oracles.kernel_api import (
    DeviceMemory,
    Dim3,
    Kernel,
    KernelArg,
    MemRefView,
    Param,
)
from gpu_alloc_verify.oracles.runtime import (
    DEVICE_RACE,
    HOST_RACE,
    USE_AFTER_FREE,
    MemoryKind,
    Profile,
)
from gpu_alloc_verify.oracles.simulated import (
    ALLOC_BASE,
    ALLOC_STRIDE,
    EVENT_BASE,
    STREAM_BASE,
    SimulatedRuntime,
    _Memory,
)

# -- the reference ---------------------------------------------------------------
# The quadratic implementation oracles/simulated.py had before its vector-clock
# rewrite, verbatim but for names: kept only to pin the fast one's behaviour.


@dataclass(eq=False)
class _RefWork:
    seq: int
    what: str
    loc: str | None
    deps: list[_RefWork]
    action: Callable[[], None] | None = None
    writes: frozenset[int] = frozenset()
    reads: frozenset[int] = frozenset()
    done: bool = False

    def conflicts(self, other: _RefWork) -> frozenset[int]:
        return (self.writes & (other.writes | other.reads)) | (self.reads & other.writes)


@dataclass
class _RefEvent:
    marker: _RefWork | None = None


@dataclass
class _RefStream:
    tail: _RefWork | None = None


class _ReferenceSimulatedRuntime(CheckedRuntime):
    def __init__(
        self, profile: str | Profile = "cuda", seed: int = 0, eagerness: float | None = None
    ) -> None:
        super().__init__(profile)
        self.seed = seed
        self.rng = random.Random(seed)
        self.eagerness = (0.0 if seed == 0 else 0.5) if eagerness is None else eagerness
        self.pending: list[_RefWork] = []
        # The null stream and the runtime's own (CU_STREAM_LEGACY, ...): each
        # a queue of its own, as created streams are non-blocking.
        self.streams: dict[int, _RefStream] = {
            s: _RefStream() for s in (0, *sorted(self.profile.special_streams))}
        self.events: dict[int, _RefEvent] = {}
        self.memory: dict[int, _Memory] = {}
        self._seq = 0
        self._next_stream = STREAM_BASE
        self._next_event = EVENT_BASE
        self.executed: list[tuple[str, str | None]] = []  # (what, loc) in run order

    # -- scheduler ----------------------------------------------------------
    def _enqueue(
        self,
        stream: int,
        what: str,
        action: Callable[[], None] | None = None,
        writes: frozenset[int] = frozenset(),
        reads: frozenset[int] = frozenset(),
        extra: tuple[_RefWork | None, ...] = (),
    ) -> _RefWork:
        st = self.streams.setdefault(stream, _RefStream())
        deps = [st.tail, *extra]
        self._seq += 1
        live_deps = list(dict.fromkeys(d for d in deps if d is not None and not d.done))
        w = _RefWork(self._seq, what, self.loc, live_deps, action, writes, reads)
        if writes or reads:
            before = self._ancestors(w)
            for p in self.pending:
                clash = w.conflicts(p)
                if clash and p not in before:
                    names = ", ".join(self.allocations[i].label for i in sorted(clash))
                    self.error(
                        DEVICE_RACE,
                        what,
                        f"{names}: unordered with {p.what} from {p.loc or '?'}",
                    )
        self.pending.append(w)
        st.tail = w
        return w

    def _ancestors(self, w: _RefWork) -> set[_RefWork]:
        seen: set[_RefWork] = set()
        stack = list(w.deps)
        while stack:
            d = stack.pop()
            if d.done or d in seen:
                continue
            seen.add(d)
            stack.extend(d.deps)
        return seen

    @staticmethod
    def _runnable(w: _RefWork) -> bool:
        return not w.done and all(d.done for d in w.deps)

    def _run(self, w: _RefWork) -> None:
        w.done = True
        self.pending.remove(w)
        self.executed.append((w.what, w.loc))
        if w.action is not None:
            saved, self.loc = self.loc, w.loc
            try:
                w.action()
            finally:
                self.loc = saved

    def _run_one_of(self, candidates: list[_RefWork]) -> None:
        ready = sorted((c for c in candidates if self._runnable(c)), key=lambda c: c.seq)
        self._run(self.rng.choice(ready))

    def _force(self, w: _RefWork | None) -> None:
        """Run `w` and what it depends on, in a random legal order."""
        while w is not None and not w.done:
            self._run_one_of([w, *self._ancestors(w)])

    def _tick(self) -> None:
        while self.pending and self.eagerness and self.rng.random() < self.eagerness:
            self._run_one_of(self.pending)

    def _b_settle(self) -> None:
        while self.pending:
            self._run_one_of(self.pending)

    # -- streams and events -------------------------------------------------
    def _b_stream_create(self) -> int:
        self._next_stream += 0x100
        self.streams[self._next_stream] = _RefStream()
        return self._next_stream

    def _b_stream_destroy(self, stream: int) -> None:
        pass  # queued work still runs, as on CUDA

    def _b_stream_synchronize(self, stream: int) -> None:
        self._force(self.streams[stream].tail)

    def _b_stream_wait_event(self, stream: int, event: int) -> None:
        marker = self.events[event].marker  # never recorded: nothing to wait for
        self._enqueue(stream, "stream_wait_event", extra=(marker,))

    def _b_event_create(self) -> int:
        self._next_event += 0x100
        self.events[self._next_event] = _RefEvent()
        return self._next_event

    def _b_event_destroy(self, event: int) -> None:
        pass

    def _b_event_record(self, event: int, stream: int) -> None:
        self.events[event].marker = self._enqueue(stream, "event_record")

    def _b_event_synchronize(self, event: int) -> None:
        self._force(self.events[event].marker)

    # -- memory -------------------------------------------------------------
    def _b_alloc(self, size: int, kind: MemoryKind, stream: int) -> int:
        index = len(self.allocations)
        self.memory[index] = _Memory(bytearray(size), bytearray(size))
        return ALLOC_BASE + index * ALLOC_STRIDE

    def _b_free(self, alloc: Allocation, stream: int) -> None:
        if self.profile.free_synchronizes:
            self._b_settle()
        else:
            users = [p for p in self.pending if alloc.index in (p.writes | p.reads)]
            if users:
                self.error(
                    HOST_RACE,
                    "mem_free",
                    f"{alloc.label} freed while {users[0].what} from "
                    f"{users[0].loc or '?'} is unfinished",
                )
        self.memory[alloc.index].freed = True

    def _b_free_sync(self, alloc: Allocation) -> None:
        self._b_settle()
        self.memory[alloc.index].freed = True

    def _b_free_async(self, alloc: Allocation, stream: int) -> None:
        def run() -> None:
            self.memory[alloc.index].freed = True

        self._enqueue(stream, "mem_free_async", run, writes=frozenset({alloc.index}))

    def _live(self, index: int, what: str) -> _Memory | None:
        mem = self.memory[index]
        if mem.freed:
            self.error(USE_AFTER_FREE, what, f"{self.allocations[index].label} freed before it ran")
            return None
        return mem

    def _b_memcpy(
        self, dst: Allocation, doff: int, src: Allocation, soff: int, n: int, stream: int
    ) -> None:
        def run() -> None:
            d, s = self._live(dst.index, "memcpy"), self._live(src.index, "memcpy")
            if d is not None and s is not None:
                d.data[doff : doff + n] = s.data[soff : soff + n]
                d.mask[doff : doff + n] = s.mask[soff : soff + n]

        self._enqueue(
            stream, "memcpy", run, writes=frozenset({dst.index}), reads=frozenset({src.index})
        )

    def _b_memset(
        self, dst: Allocation, off: int, pattern: bytes, count: int, stream: int
    ) -> None:
        n = len(pattern) * count

        def run() -> None:
            d = self._live(dst.index, f"memset{8 * len(pattern)}")
            if d is not None:
                d.data[off : off + n] = pattern * count
                d.mask[off : off + n] = b"\x01" * n

        self._enqueue(stream, f"memset{8 * len(pattern)}", run, writes=frozenset({dst.index}))

    def _b_host_free(self, alloc: Allocation) -> None:
        self._host_race("host_free", alloc, write=True)
        self.memory[alloc.index].freed = True

    def _b_launch(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
                  stream: int, reads: frozenset[int], writes: frozenset[int]) -> None:
        call = f"launch @{kernel.name}"

        def run() -> None:
            kernel.run(grid, block, args, self.device_memory(call))

        self._enqueue(stream, call, run, writes=writes, reads=reads)

    def _b_usable(self, alloc: Allocation) -> bool:
        return not self.memory[alloc.index].freed

    def _b_device_read(self, a: Allocation, off: int, n: int) -> bytes:
        mem = self.memory[a.index]
        return bytes(mem.data[off : off + n])

    def _b_device_write(self, a: Allocation, off: int, data: bytes) -> None:
        mem = self.memory[a.index]
        mem.data[off : off + len(data)] = data
        mem.mask[off : off + len(data)] = b"\x01" * len(data)

    def _host_race(self, call: str, a: Allocation, write: bool) -> None:
        for p in self.pending:
            touched = p.writes | p.reads if write else p.writes
            if a.index in touched:
                self.error(
                    HOST_RACE,
                    call,
                    f"{a.label} accessed while {p.what} from {p.loc or '?'} is unfinished",
                )
                return

    def _b_host_read(self, a: Allocation, off: int, n: int) -> tuple[bytes, bytes | None]:
        self._host_race("host_read", a, write=False)
        mem = self.memory[a.index]
        return bytes(mem.data[off : off + n]), bytes(mem.mask[off : off + n])

    def _b_host_write(self, a: Allocation, off: int, data: bytes) -> None:
        self._host_race("host_write", a, write=True)
        mem = self.memory[a.index]
        mem.data[off : off + len(data)] = data
        mem.mask[off : off + len(data)] = b"\x01" * len(data)

    def _b_contents(self, a: Allocation) -> tuple[bytes, bytes | None]:
        mem = self.memory[a.index]
        return bytes(mem.data), bytes(mem.mask)


# -- programs ------------------------------------------------------------------

SIZE = 16


@dataclass
class _CopyKernel:
    """A toy kernel: thread 0 copies SIZE bytes from param 0 to param 1."""

    name: str
    reads: frozenset[int]
    writes: frozenset[int]
    params: tuple[Param, ...] = (Param("memref", "memref<16xi8>", "i8", 1),) * 2
    cuda: str | None = None

    def run(self, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
            memory: DeviceMemory) -> None:
        src, dst = args[0], args[1]
        assert isinstance(src, MemRefView) and isinstance(dst, MemRefView)
        data = memory.load(src.ptr, SIZE)
        if data is not None:
            memory.store(dst.ptr, bytes(x + 1 & 0xFF for x in data))


COPY = _CopyKernel("copy", frozenset({0}), frozenset({1}))
INPLACE = _CopyKernel("inplace", frozenset({0, 1}), frozenset({0, 1}))

# Weighted toward queued work and cross-stream ordering, where the scheduler's
# bookkeeping lies; a few of everything else.
OPS = ("stream_create", "stream_destroy", "stream_sync", "event_create", "event_destroy",
       "event_record", "wait_event", "event_sync", "alloc", "free", "memset", "memset", "memset",
       "memcpy", "memcpy", "launch", "launch", "host_read", "host_write", "settle_point",
       "hand_off", "hand_off", "hand_off")
Op = tuple[str, int, int, int]


def _view(ptr: int) -> MemRefView:
    return MemRefView(ptr, 0, (SIZE,), (1,), "i8")


def _step(rt: CheckedRuntime, op: Op, streams: list[int], events: list[int],
          bufs: list[int]) -> None:
    name, a, b, c = op
    s = streams[a % len(streams)]
    e = events[b % len(events)] if events else EVENT_BASE + 0x1300  # never created
    p = bufs[b % len(bufs)] if bufs else ALLOC_BASE
    q = bufs[c % len(bufs)] if bufs else ALLOC_BASE
    if name == "stream_create":
        streams.append(rt.stream_create())
    elif name == "stream_destroy":
        if c == 0:  # rarely: a destroyed handle ends most of what follows
            rt.stream_destroy(s)
    elif name == "stream_sync":
        rt.stream_synchronize(s)
    elif name == "event_create":
        events.append(rt.event_create())
    elif name == "event_destroy":
        if c == 0:  # rarely: a destroyed handle ends most of what follows
            rt.event_destroy(e)
    elif name == "event_record":
        rt.event_record(e, s)
    elif name == "wait_event":
        rt.stream_wait_event(s, e)
    elif name == "hand_off":  # order one stream's work after another's so far
        rt.event_record(e, s)
        rt.stream_wait_event(streams[c % len(streams)], e)
    elif name == "event_sync":
        rt.event_synchronize(e)
    elif name == "alloc":
        shared = c % 2 == 0
        ptr = (rt.mem_alloc(SIZE, s, shared), rt.mem_alloc_sync(SIZE, shared),
               rt.mem_alloc_async(SIZE, s, shared), rt.host_alloc(SIZE))[c % 4]
        if ptr:
            bufs.append(ptr)
    elif name == "free":
        (lambda: rt.mem_free(p, s), lambda: rt.mem_free_sync(p),
         lambda: rt.mem_free_async(p, s), lambda: rt.host_free(p))[c % 4]()
    elif name == "memset":
        (rt.memset8, rt.memset16, rt.memset32, rt.memset64)[c % 4](p, a + c, 2, s)
    elif name == "memcpy":
        rt.memcpy(q, p, SIZE - c, s)
    elif name == "launch":
        rt.launch(COPY if c % 3 else INPLACE, (1, 1, 1), (1, 1, 1), [_view(p), _view(q)], s)
    elif name == "host_read":
        rt.host_read(p, 4)
    elif name == "host_write":
        rt.host_write(p, bytes([a, b, c, 1]))
    # "settle_point": nothing but the call's own chance to run work early


def _trace(rt: Any, ops: Sequence[Op]) -> list[Any]:
    """Everything observable of a run, step by step."""
    # Two streams, two events, three buffers to start with, so that most
    # operations reach the scheduler rather than a handle check.
    streams = [rt.stream_create(), rt.stream_create(), 0, *sorted(rt.profile.special_streams)]
    events = [rt.event_create(), rt.event_create()]
    bufs = [rt.mem_alloc(SIZE, 0, True), rt.mem_alloc(SIZE, 0, True), rt.mem_alloc(SIZE, 0, False)]
    out: list[Any] = []
    for n, op in enumerate(ops):
        rt.set_location(f"op{n % 7}")
        try:
            _step(rt, op, streams, events, bufs)
        except Exception as exc:  # both must fail alike, should either fail
            out.append(("raised", type(exc).__name__, str(exc)))
        out.append((list(rt.errors), list(rt.executed), [w.seq for w in rt.pending]))
    out.append(rt.outcome())
    out.append((list(rt.executed), rt.rng.getstate()))
    return out


_ops = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7)),
    min_size=20,  # Hypothesis stays near the minimum: long enough to interleave
    max_size=60,
)


@pytest.mark.slow
@settings(max_examples=300, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(profile=st.sampled_from(["cuda", "hip", "sycl"]), seed=st.integers(0, 5),
       eagerness=st.sampled_from([None, 0.0, 0.2, 0.5, 0.9]), ops=_ops)
def test_same_errors_schedule_and_draws_as_the_reference(
    profile: str, seed: int, eagerness: float | None, ops: list[Op]
) -> None:
    new = _trace(SimulatedRuntime(profile, seed, eagerness), ops)
    ref = _trace(_ReferenceSimulatedRuntime(profile, seed, eagerness), ops)
    assert new == ref


def test_the_programs_reach_races_and_frees() -> None:
    """The equivalence above means something: its programs do find these."""
    kinds: set[str] = set()
    rng = random.Random(4)
    for _ in range(200):
        ops = [(rng.choice(OPS), rng.randrange(8), rng.randrange(8), rng.randrange(8))
               for _ in range(30)]
        rt = SimulatedRuntime(rng.choice(["cuda", "sycl"]), rng.randrange(3))
        _trace(rt, ops)
        kinds |= {e.kind for e in rt.errors}
    assert {DEVICE_RACE, HOST_RACE, USE_AFTER_FREE} <= kinds


# -- scale ---------------------------------------------------------------------


def _chain(rt: SimulatedRuntime, n: int) -> float:
    """n dependent memsets on one buffer, handed between two streams by an
    event every 50; the seconds the program took, settled."""
    a, b = rt.stream_create(), rt.stream_create()
    ev = rt.event_create()
    buf = rt.mem_alloc(64, a, False)
    start = time.perf_counter()
    s = a
    for i in range(n):
        if i and i % 50 == 0:
            rt.event_record(ev, s)
            s = b if s == a else a
            rt.stream_wait_event(s, ev)
        rt.memset32(buf, i, 16, s)
    rt.stream_synchronize(a)
    rt.stream_synchronize(b)
    rt.outcome()
    return time.perf_counter() - start


def test_a_5000_op_chain_with_hand_offs_runs_in_about_a_second() -> None:
    for seed in (0, 1):  # the laziest schedule, then an eager one
        rt = SimulatedRuntime("cuda", seed)
        elapsed = _chain(rt, 5000)
        assert rt.errors == []
        assert len(rt.executed) == 5000 + 2 * 99 and not rt.pending
        # ~0.1 s measured; the bound only catches a return to quadratic (~30 s).
        assert elapsed < 5.0, f"seed {seed}: {elapsed:.2f} s"


def test_unordered_streams_at_scale_report_every_race_in_order() -> None:
    """Two streams, no hand-off: each memset races with every unfinished one on
    the other stream, reported oldest first, as the reference does."""
    rt, ref = SimulatedRuntime("cuda", 0), _ReferenceSimulatedRuntime("cuda", 0)
    for r in (rt, ref):
        a, b = r.stream_create(), r.stream_create()
        buf = r.mem_alloc(64, a, False)
        for i in range(60):
            r.set_location(f"op{i}")
            r.memset32(buf, i, 16, a if i % 2 else b)
        r.host_read(buf, 4)
    assert len(rt.errors) == sum((i + 1) // 2 for i in range(60)) + 1  # + the host race
    assert rt.errors == ref.errors and rt.outcome() == ref.outcome()
