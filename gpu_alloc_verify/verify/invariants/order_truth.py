"""`async-order` on one execution: the source's edges, checked on the lowered run.

Both runs go through the simulator, which logs each source op's effects
(`simulated.OrderLog`: queued work, host accesses, frees, host waits).  An
edge of the source run (by `ordering`'s definition: a token, a host wait, a
synchronous op, a host access before later work or a conflicting host
access on its buffer) must hold in the lowered run under the runtime's own
happens-before: stream order and event waits (the work's vector clock), or
the host having waited for the earlier work before it issued the later.  A
race detector cannot see an edge broken by two calls on one stream in the
wrong order: they are ordered, the wrong way round.

Effects are matched across the runs by (source op, kind, how many times
that op made one before); an effect the lowered run lacks is not an order's
business (the differential check sees a missing op).  Each effect is
checked against its nearest source predecessors only (the latest one per
queue, the last conflicting host accesses): happens-before is transitive in
both runs, so that covers every edge in time linear in the effects.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpu_alloc_verify.oracles.simulated import OrderLog, Point, Sync

WORK_KINDS = ("memset", "memcpy", "launch", "mem_free_async")
HOST_KINDS = ("host_read", "host_write", "mem_free", "host_free")
MAX_CHECKS = 200_000  # edge checks per execution before giving up (a huge run)
Key = tuple[str, str, int]  # (source op, kind, occurrence)


def _kind(what: str) -> str | None:
    for k in (*WORK_KINDS, *HOST_KINDS):
        if what.startswith(k):
            return k
    return None


@dataclass
class _Run:
    """One run's effects with the happens-before the runtime guarantees."""

    effects: list[Point]
    keys: dict[int, Key]  # id(point) -> key
    known_at: dict[int, int]  # id(work point) -> when the host knew it done

    def host_knew(self, a: Point, time: int) -> bool:
        return self.known_at.get(id(a), 1 << 62) < time

    def before(self, a: Point, b: Point) -> bool:
        """Does `a` finish before `b` starts, in every schedule?"""
        if a.work is None:  # a host action is done when its call returns
            return a.time < b.time
        if b.work is not None and b is not a and \
                b.work.clock.get(a.work.queue, -1) >= a.work.index:
            return True
        return self.host_knew(a, b.time)


def _effects(log: OrderLog) -> tuple[list[Point], dict[int, Key]]:
    seen: dict[tuple[str, str], int] = defaultdict(int)
    effects, keys = [], {}
    for p in sorted(log.points, key=lambda p: p.time):
        kind = _kind(p.what)
        if kind is None:
            continue
        n = seen[(p.loc, kind)]
        seen[(p.loc, kind)] += 1
        effects.append(p)
        keys[id(p)] = (p.loc, kind, n)
    return effects, keys


def _known(effects: list[Point], log: OrderLog, counts: Callable[[Sync], bool]
           ) -> dict[int, int]:
    """When the host first knew each queued effect done, by the syncs `counts` keeps."""
    per_queue: dict[int, tuple[list[int], list[int]]] = {}  # queue -> (max index, time)
    settles: list[int] = []
    for s in sorted(log.syncs, key=lambda s: s.time):
        if not counts(s):
            continue
        if s.clock is None:
            settles.append(s.time)
            continue
        for q, i in s.clock.items():
            idx, times = per_queue.setdefault(q, ([], []))
            if not idx or i > idx[-1]:
                idx.append(i)
                times.append(s.time)
    out: dict[int, int] = {}
    for p in effects:
        if p.work is None:
            continue
        best = 1 << 62
        if p.work.queue in per_queue:
            idx, times = per_queue[p.work.queue]
            j = bisect.bisect_left(idx, p.work.index)
            if j < len(idx):
                best = times[j]
        j = bisect.bisect_right(settles, p.time)
        if j < len(settles):
            best = min(best, settles[j])
        out[id(p)] = best
    return out


def lowered_run(log: OrderLog) -> _Run:
    """The lowered run: every host wait orders, a device-wide settle too."""
    effects, keys = _effects(log)
    return _Run(effects, keys, _known(effects, log, lambda s: True))


def source_edges(log: OrderLog, quiet_locs: frozenset[str]) -> Iterable[tuple[Point, Point, str]]:
    """The source run's edges (earlier, later, why), nearest predecessors only.

    Only the source's own waits order later work: a `gpu.wait`, a
    synchronous op.  The simulator's settle (cuda's free synchronizes the
    device) and a dealloc's wait for its dependencies (`quiet_locs`: that
    wait orders the free only) are the model's, not edges of the source."""
    effects, _ = _effects(log)
    known = _known(effects, log, lambda s: s.kind != "settle"
                   and not (s.kind == "event" and s.loc in quiet_locs))
    quiet = [s for s in log.syncs if s.kind == "event" and s.loc in quiet_locs]
    queues: dict[int, _Queue] = defaultdict(_Queue)  # queue -> its effects by index
    by_buffer: dict[int, list[Point]] = defaultdict(list)  # host accesses by buffer
    pending_known = sorted((known[id(p)], i) for i, p in enumerate(effects)
                           if p.work is not None and known[id(p)] < 1 << 62)
    host_front: dict[int, Point] = {}  # queue -> its latest effect the host knows done
    k = 0
    last = -1  # the time of the effect before b (a dealloc's own waits come after it)
    for b in effects:
        while k < len(pending_known) and pending_known[k][0] < b.time:
            a = effects[pending_known[k][1]]
            assert a.work is not None
            cur = host_front.get(a.work.queue)
            if cur is None or cur.work is None or cur.work.index < a.work.index:
                host_front[a.work.queue] = a
            k += 1
        if b.work is not None:
            for q, i in b.work.clock.items():
                dep = _latest(queues.get(q), i - 1 if q == b.work.queue else i)
                if dep is not None:
                    yield dep, b, "its token"
        for a in host_front.values():
            yield a, b, "a host wait or synchronous op before it"
        if b.work is None and b.what == "mem_free":
            for s in quiet:
                if s.loc == b.loc and s.time < b.time and s.clock is not None:
                    for q, i in s.clock.items():
                        dep = _latest(queues.get(q), i)
                        if dep is not None and s.time > last:
                            yield dep, b, "its token"
        for buf in b.buffers:
            for a in _host_accesses_before(by_buffer.get(buf, []), b):
                yield a, b, "host order on its buffer"
        last = b.time
        if b.work is not None:
            queues[b.work.queue].add(b)
        else:
            for buf in b.buffers:
                by_buffer[buf].append(b)


class _Queue(list[Point]):
    """A queue's effects in index order, with their indices for bisection."""

    def __init__(self) -> None:
        super().__init__()
        self.indices: list[int] = []

    def add(self, p: Point) -> None:
        assert p.work is not None
        self.append(p)
        self.indices.append(p.work.index)


def _latest(items: _Queue | None, index: int) -> Point | None:
    """The last effect in a queue at or before `index`."""
    if not items:
        return None
    j = bisect.bisect_right(items.indices, index)
    return items[j - 1] if j else None


def _host_accesses_before(items: list[Point], b: Point) -> list[Point]:
    """The host accesses of one buffer before `b` that `b` must follow: the
    last writing one, and for a writing or device `b` the reads after it."""
    out: list[Point] = []
    for a in reversed(items):
        if a.writes:
            out.append(a)
            break
        if b.writes or b.work is not None:
            out.append(a)
    return out


def broken_edges(source: OrderLog, lowered: OrderLog,
                 quiet_locs: frozenset[str]) -> list[str] | None:
    """The source edges the lowered run does not keep, in words; None when
    the run is too large to check here."""
    low = lowered_run(lowered)
    by_key = {low.keys[id(p)]: p for p in low.effects}
    _, src_keys = _effects(source)
    out: list[str] = []
    checked = 0
    seen: set[tuple[Key, Key]] = set()
    for a, b, why in source_edges(source, quiet_locs):
        checked += 1
        if checked > MAX_CHECKS:
            return None
        ka, kb = src_keys[id(a)], src_keys[id(b)]
        if (ka, kb) in seen:
            continue
        seen.add((ka, kb))
        la, lb = by_key.get(ka), by_key.get(kb)
        if la is None or lb is None or low.before(la, lb):
            continue
        out.append(f"{_name(kb)} can start before {_name(ka)} is done, which the source "
                   f"orders before it ({why})")
    return out


def _name(key: Key) -> str:
    loc, kind, n = key
    return f"{kind} of {loc}" + (f" (its instance {n + 1})" if n else "")
