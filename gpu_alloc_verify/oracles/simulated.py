"""A simulated GPU runtime: streams as FIFO queues, run lazily by a seeded scheduler.

Device work (memset, memcpy, event records, event waits) is queued, never run
at once.  It runs when the host forces it (stream or event synchronization,
the device-synchronizing free of cuda/hip, the final `outcome()`), and at the
start of every API call the scheduler may run some runnable work, chosen by
its seeded random generator: different seeds are different legal schedules.
Seed 0 runs nothing early (the laziest schedule, the one that shows a missing
synchronization most plainly).

Ordering is explicit: a work item depends on the item before it on its
stream and on the marker of an event it waits for.  Streams are created
non-blocking (as `mgpuStreamCreate` does), so the null stream orders nothing
but its own work; so do the profile's special stream handles (cuda's
CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, hip's hipStreamPerThread), each a
queue of its own.

Races are found whatever the schedule: a host access to a buffer that queued
work still writes (`host-race`), and two queued operations on one buffer, at
least one writing, neither ordered before the other (`device-race`).  The
host sees the un-run state, so the racy read also shows as a different value.

Beside the races, the runtime keeps an `OrderLog`: every piece of work and
every host access, free and synchronization a source op made (by location),
stamped with one action clock.  From it `verify.invariants.order_truth`
reads the happens-before relation the runtime guarantees (stream order,
event waits, the host waiting) and checks the source's edges against it,
which a race detector cannot: two ops on one stream in the wrong order are
ordered, just the wrong way round.
"""

from __future__ import annotations

import bisect
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from gpu_alloc_verify.oracles.checked import Allocation, CheckedRuntime
from gpu_alloc_verify.oracles.kernel_api import Dim3, Kernel, KernelArg
from gpu_alloc_verify.oracles.runtime import (
    DEVICE_RACE,
    HOST_RACE,
    USE_AFTER_FREE,
    MemoryKind,
    Profile,
)
from gpu_alloc_verify.verify.model import budget

STREAM_BASE = 0x7E00_0000_0000
EVENT_BASE = 0x7F00_0000_0000
ALLOC_BASE = 0x1000_0000_0000
ALLOC_STRIDE = 1 << 33  # > the largest allocation, so pointers never alias


@dataclass(eq=False)
class _Work:
    seq: int
    what: str
    loc: str | None
    deps: list[_Work]  # the items it waited for that were not done when queued
    action: Callable[[], None] | None = None
    writes: frozenset[int] = frozenset()
    reads: frozenset[int] = frozenset()
    done: bool = False
    queue: int = 0  # the stream it is on: a queue totally ordered by `index`
    index: int = 0
    # queue -> the highest index in it known to run before this item (itself included)
    clock: dict[int, int] = field(default_factory=dict, repr=False)
    dependents: list[_Work] = field(default_factory=list, repr=False)
    waiting: int = 0  # deps not yet done: ready to run at 0
    time: int = 0  # the action clock when it was queued (`OrderLog`'s)

    def conflicts(self, other: _Work) -> frozenset[int]:
        return (self.writes & (other.writes | other.reads)) | (self.reads & other.writes)


_by_seq = attrgetter("seq")


@dataclass(frozen=True)
class Point:
    """A source op's effect as the runtime saw it: queued work (`work`) or
    a host action (a host access or a free) that is done when its call
    returns.  `buffers`: the allocation indices it touches."""

    time: int  # the action clock (host order) when it was made
    loc: str
    what: str
    work: _Work | None = None
    buffers: frozenset[int] = frozenset()
    writes: bool = False


@dataclass(frozen=True)
class Sync:
    """The host waited: for the work `clock` covers (queue -> highest index),
    or for everything queued (`clock` None: a device-wide settle)."""

    time: int
    loc: str | None
    kind: str  # "stream", "event" or "settle"
    clock: dict[int, int] | None


@dataclass
class OrderLog:
    points: list[Point] = field(default_factory=list)
    syncs: list[Sync] = field(default_factory=list)


@dataclass
class _Memory:
    data: bytearray
    mask: bytearray  # 1 where a byte was ever written
    freed: bool = False


@dataclass
class _EventState:
    marker: _Work | None = None


@dataclass
class _StreamState:
    tail: _Work | None = None
    count: int = 0  # items ever queued: the next one's index


class SimulatedRuntime(CheckedRuntime):
    def __init__(
        self, profile: str | Profile = "cuda", seed: int = 0, eagerness: float | None = None
    ) -> None:
        super().__init__(profile)
        self.seed = seed
        self.rng = random.Random(seed)
        self.eagerness = (0.0 if seed == 0 else 0.5) if eagerness is None else eagerness
        # Unfinished work in queue (seq) order; a dict so that finishing is O(1).
        self.pending: dict[_Work, None] = {}
        self._ready: list[_Work] = []  # pending work whose deps are all done, by seq
        # buffer -> queue -> the pending work writing (reading) it, in queue order
        self._writers: dict[int, dict[int, deque[_Work]]] = {}
        self._readers: dict[int, dict[int, deque[_Work]]] = {}
        # The null stream and the runtime's own (CU_STREAM_LEGACY, ...): each
        # a queue of its own, as created streams are non-blocking.
        self.streams: dict[int, _StreamState] = {
            s: _StreamState() for s in (0, *sorted(self.profile.special_streams))}
        self.events: dict[int, _EventState] = {}
        self.memory: dict[int, _Memory] = {}
        self._seq = 0
        self._next_stream = STREAM_BASE
        self._next_event = EVENT_BASE
        self.executed: list[tuple[str, str | None]] = []  # (what, loc) in run order
        self.order = OrderLog()
        self._now = 0  # the action clock of the order log (work, host actions, waits)
        self._clock_entries = 0  # the work's vector-clock entries so far (a memory bound)
        self._pairs_seen = 0  # pending work the race detector looked at (a time bound)

    # -- scheduler ----------------------------------------------------------
    # Each stream is a queue its work runs through in order, so happens-before
    # is a vector clock (queue -> highest index known to precede), and the
    # runnable set is kept as work finishes rather than recomputed: a program
    # of n queued operations costs about n log n, not n squared.
    def _enqueue(
        self,
        stream: int,
        what: str,
        action: Callable[[], None] | None = None,
        writes: frozenset[int] = frozenset(),
        reads: frozenset[int] = frozenset(),
        extra: tuple[_Work | None, ...] = (),
    ) -> _Work:
        st = self.streams.setdefault(stream, _StreamState())
        deps = [st.tail, *extra]
        self._seq += 1
        live_deps = list(dict.fromkeys(d for d in deps if d is not None and not d.done))
        w = _Work(self._seq, what, self.loc, live_deps, action, writes, reads,
                  queue=stream, index=st.count)
        st.count += 1
        self._now += 1
        w.time = self._now
        # Done deps count too: the race detector needs only pending work's
        # order, but the order log is asked about work done long ago (a dep
        # an eager schedule ran is no less an order).
        clock: dict[int, int] = {}
        for d in dict.fromkeys(d for d in deps if d is not None):
            for q, i in d.clock.items():
                if clock.get(q, -1) < i:
                    clock[q] = i
        clock[stream] = w.index
        w.clock = clock
        self._clock_entries += len(clock)
        if self._clock_entries > budget.SIMULATED_MAX_CLOCK_ENTRIES:
            raise budget.TooMuchOrderToSimulate(self._now)
        if writes or reads:
            for p in self._unordered(w):
                clash = w.conflicts(p)
                names = ", ".join(self.allocations[i].label for i in sorted(clash))
                self.error(
                    DEVICE_RACE,
                    what,
                    f"{names}: unordered with {p.what} from {p.loc or '?'}",
                )
        self.pending[w] = None
        for b in writes:
            self._writers.setdefault(b, {}).setdefault(stream, deque()).append(w)
        for b in reads:
            self._readers.setdefault(b, {}).setdefault(stream, deque()).append(w)
        w.waiting = len(live_deps)
        for d in live_deps:
            d.dependents.append(w)
        if not w.waiting:
            bisect.insort(self._ready, w, key=_by_seq)
        st.tail = w
        if self.loc is not None:
            self.order.points.append(Point(w.time, self.loc, what, w, writes | reads,
                                           bool(writes)))
        return w

    def _host_point(self, what: str, a: Allocation, writes: bool) -> None:
        """Log a host action of a source op (a host access, a free)."""
        if self.loc is not None:
            self._now += 1
            self.order.points.append(Point(self._now, self.loc, what, None,
                                           frozenset({a.index}), writes))

    def _synced(self, kind: str, clock: dict[int, int] | None) -> None:
        self._now += 1
        self.order.syncs.append(Sync(self._now, self.loc, kind, clock))

    def _unordered(self, w: _Work) -> list[_Work]:
        """The pending work that conflicts with `w` and does not run before it, by seq."""
        found: set[_Work] = set()
        for b in w.writes | w.reads:
            tables = (self._writers, self._readers) if b in w.writes else (self._writers,)
            for table in tables:
                for q, items in table.get(b, {}).items():
                    known = w.clock.get(q, -1)
                    for p in reversed(items):
                        if p.index <= known:
                            break  # p runs before w, and so does all before it in q
                        found.add(p)
                        self._pairs_seen += 1
        if self._pairs_seen > budget.SIMULATED_MAX_RACE_PAIRS:
            # Work on ever more unordered streams: each op is compared with
            # every pending one (and each clash is an error record), so time
            # and memory grow quadratically within the step limit.
            raise budget.TooMuchOrderToSimulate(self._now)
        return sorted(found, key=_by_seq)

    def _first_pending(self, index: int, write: bool) -> _Work | None:
        """The oldest pending work writing (or, for `write`, touching) a buffer."""
        tables = (self._writers, self._readers) if write else (self._writers,)
        # A queue's oldest toucher leads its list: the oldest overall is among those.
        fronts = [items[0] for t in tables for items in t.get(index, {}).values()]
        return min(fronts, key=_by_seq, default=None)

    @staticmethod
    def _unindex(table: dict[int, dict[int, deque[_Work]]], b: int, w: _Work) -> None:
        per_queue = table[b]
        items = per_queue[w.queue]
        items.remove(w)  # the front: a queue's work finishes in order
        if not items:
            del per_queue[w.queue]
            if not per_queue:
                del table[b]

    def _run(self, w: _Work) -> list[_Work]:
        """Run a ready item; the items it made ready."""
        w.done = True
        del self.pending[w]
        del self._ready[bisect.bisect_left(self._ready, w.seq, key=_by_seq)]
        for b in w.writes:
            self._unindex(self._writers, b, w)
        for b in w.reads:
            self._unindex(self._readers, b, w)
        freed: list[_Work] = []
        for c in w.dependents:
            c.waiting -= 1
            if not c.waiting:
                bisect.insort(self._ready, c, key=_by_seq)
                freed.append(c)
        w.dependents = []
        self.executed.append((w.what, w.loc))
        # Actions touch memory and record errors, never the queues.
        if w.action is not None:
            saved, self.loc = self.loc, w.loc
            try:
                w.action()
            finally:
                self.loc = saved
        return freed

    def _force(self, w: _Work | None) -> None:
        """Run `w` and what it depends on, in a random legal order."""
        if w is None or w.done:
            return
        # Nothing else runs meanwhile, so w's unfinished ancestry is found once.
        todo = {w}
        stack = [w]
        while stack:
            for d in stack.pop().deps:
                if not d.done and d not in todo:
                    todo.add(d)
                    stack.append(d)
        ready = sorted((x for x in todo if not x.waiting), key=_by_seq)
        while not w.done:
            x = self.rng.choice(ready)
            del ready[bisect.bisect_left(ready, x.seq, key=_by_seq)]
            for c in self._run(x):
                if c in todo:
                    bisect.insort(ready, c, key=_by_seq)

    def _tick(self) -> None:
        while self.pending and self.eagerness and self.rng.random() < self.eagerness:
            self._run(self.rng.choice(self._ready))

    def _b_settle(self) -> None:
        while self.pending:
            self._run(self.rng.choice(self._ready))
        self._synced("settle", None)

    # -- streams and events -------------------------------------------------
    def _b_stream_create(self) -> int:
        self._next_stream += 0x100
        self.streams[self._next_stream] = _StreamState()
        return self._next_stream

    def _b_stream_destroy(self, stream: int) -> None:
        pass  # queued work still runs, as on CUDA

    def _b_stream_synchronize(self, stream: int) -> None:
        tail = self.streams[stream].tail
        self._force(tail)
        if tail is not None:
            self._synced("stream", tail.clock)

    def _b_stream_wait_event(self, stream: int, event: int) -> None:
        marker = self.events[event].marker  # never recorded: nothing to wait for
        self._enqueue(stream, "stream_wait_event", extra=(marker,))

    def _b_event_create(self) -> int:
        self._next_event += 0x100
        self.events[self._next_event] = _EventState()
        return self._next_event

    def _b_event_destroy(self, event: int) -> None:
        pass

    def _b_event_record(self, event: int, stream: int) -> None:
        self.events[event].marker = self._enqueue(stream, "event_record")

    def _b_event_synchronize(self, event: int) -> None:
        marker = self.events[event].marker
        self._force(marker)
        if marker is not None:
            self._synced("event", marker.clock)

    # -- memory -------------------------------------------------------------
    def _b_alloc(self, size: int, kind: MemoryKind, stream: int) -> int:
        if size > budget.SIMULATED_MAX_BYTES:  # zeroed eagerly below: minutes for 10^9
            raise budget.TooLargeToSimulate(size)
        index = len(self.allocations)
        self.memory[index] = _Memory(bytearray(size), bytearray(size))
        return ALLOC_BASE + index * ALLOC_STRIDE

    def _b_free(self, alloc: Allocation, stream: int) -> None:
        if self.profile.free_synchronizes:
            self._b_settle()
        else:
            user = self._first_pending(alloc.index, write=True)
            if user is not None:
                self.error(
                    HOST_RACE,
                    "mem_free",
                    f"{alloc.label} freed while {user.what} from "
                    f"{user.loc or '?'} is unfinished",
                )
        self.memory[alloc.index].freed = True
        self._host_point("mem_free", alloc, True)

    def _b_free_sync(self, alloc: Allocation) -> None:
        self._b_settle()
        self.memory[alloc.index].freed = True
        self._host_point("mem_free", alloc, True)

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
        self._host_point("host_free", alloc, True)

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
        p = self._first_pending(a.index, write)
        if p is not None:
            self.error(
                HOST_RACE,
                call,
                f"{a.label} accessed while {p.what} from {p.loc or '?'} is unfinished",
            )

    def _b_host_read(self, a: Allocation, off: int, n: int) -> tuple[bytes, bytes | None]:
        self._host_race("host_read", a, write=False)
        self._host_point("host_read", a, False)
        mem = self.memory[a.index]
        return bytes(mem.data[off : off + n]), bytes(mem.mask[off : off + n])

    def _b_host_write(self, a: Allocation, off: int, data: bytes) -> None:
        self._host_race("host_write", a, write=True)
        self._host_point("host_write", a, True)
        mem = self.memory[a.index]
        mem.data[off : off + len(data)] = data
        mem.mask[off : off + len(data)] = b"\x01" * len(data)

    def _b_contents(self, a: Allocation) -> tuple[bytes, bytes | None]:
        mem = self.memory[a.index]
        return bytes(mem.data), bytes(mem.mask)
