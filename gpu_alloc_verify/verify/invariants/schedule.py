"""Every schedule the stream and event semantics allow.

Host calls run in list order at increasing times H[i].  A call that puts
work on a stream gets a start and an end after its issue time; work on one
stream runs in FIFO order; an event record completes after the work its
stream had before it; `mgpuStreamWaitEvent` holds later work of a stream
until the event completes; `mgpuStreamSynchronize` / `mgpuEventSynchronize`
hold the host.  A wait or synchronize sees only the event's latest record
when it is issued (a re-record replaces it; CUDA's wrapper semantics), and
`mgpuEventSynchronize` of a stream handle waits for nothing.  Work the
wrapper finishes before returning (allocation, a free on the null stream)
ends before the next host call.  A call on a stream or event destroyed
before it on its path does nothing (the wrapper rejects the handle): a
synchronize, wait or record then orders nothing, and work never runs
(`Item.dead`); where a destroy of a value the analysis could not follow (or
an escape) might be the one, the order is kept only for `strengthened`.
Anything else the device is free to reorder: a model of the constraints is
a schedule.

Every constraint is an order `p < q` or `p <= q` between two time
variables, under a guard (the paths on which it applies).  They are kept as
a graph as well as Z3 formulas: when a chain of constraints whose guards a
query's path condition implies leads from `p` to `q`, then `p <= q` in
every schedule of those paths and no solver is needed (`ordered`).  Z3 is
asked only what the chains cannot prove, and gives the counterexample.
"""

from __future__ import annotations

import bisect
import collections
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.calls import Call
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.runtime_api import (
    DESTROYERS,
    PROFILES,
    allocates_at_once,
    arg_of,
    host_synchronous,
    ignores_stream,
    is_work,
    order_kind,
)
from gpu_alloc_verify.verify.model.values import HANDLE_BASE, leaves, unknown_vars


@dataclass
class Item:
    """A point or span on the timeline: a work item or a host access.
    `start` and `end` name time variables of the schedule."""

    call: Call
    start: str
    end: str
    stream: smt.ArithRef | None  # None for host accesses
    # Paths on which its stream was destroyed before it: the work never runs.
    dead: smt.BoolRef = fold.FALSE
    # Whether a destroy the analysis could not follow may have done so.
    doubt: bool = False


@dataclass
class Order:
    """`earlier < later` (strict) or `earlier <= later`, when `guard` holds."""

    guard: smt.BoolRef
    earlier: str
    later: str
    strict: bool


@dataclass
class Schedule:
    items: dict[int, Item] = field(default_factory=dict)  # by call index
    host: dict[int, str] = field(default_factory=dict)
    orders: list[Order] = field(default_factory=list)
    # Orders that apply only if a stream or event the analysis could not
    # follow is a given one: left out of the encoding (a schedule may take it
    # to be another), kept, as if it were, for `strengthened`.
    hidden_orders: list[Order] = field(default_factory=list)
    # Values not followed whose destroys may void an order or kill work.
    doubts: list[smt.ExprRef] = field(default_factory=list)
    _vars: dict[str, smt.ArithRef] = field(default_factory=dict)
    _constraints: list[smt.BoolRef] | None = None
    _succ: dict[str, list[tuple[str, frozenset[int]]]] | None = None
    _reach: dict[tuple[str, frozenset[int]], set[str]] = field(default_factory=dict)
    # The earliest host time H known to follow a point on a path (`ordered`).
    _hbound: dict[tuple[str, frozenset[int]], int] = field(default_factory=dict)
    _forward: bool = True  # every order goes from a call to itself or a later one

    def order(self, guard: smt.BoolRef, earlier: str, later: str, strict: bool = False) -> None:
        if guard is not fold.FALSE:
            self.orders.append(Order(guard, earlier, later, strict))

    def order_if_same(self, guards: tuple[smt.BoolRef, ...],
                      same: tuple[tuple[smt.ArithRef, smt.ArithRef], ...],
                      earlier: str, later: str,
                      unless: tuple[tuple[smt.BoolRef, smt.ArithRef, smt.ArithRef], ...] = (),
                      doubt: bool = False) -> bool:
        """`earlier <= later` on the paths `guards` when each pair in `same`
        is one value, except where for some `(g, x, y)` in `unless`, `g`
        holds and `x` is `y` (a later record replaced the one ordering).
        `doubt`: an unfollowed destroy may void it (kept for `strengthened`).
        False when no order is kept (it holds on no path)."""
        eqs: list[smt.BoolRef] = []
        hidden = doubt
        for x, y in same:
            if x is y:
                continue
            if fold.unknown_only(x) or fold.unknown_only(y):
                hidden = True
            else:
                eqs.append(fold.eq(x, y))
        for g, x, y in unless:
            if x is not y and (fold.unknown_only(x) or fold.unknown_only(y)):
                # Whether it voids the order hinges on a value not followed:
                # the order is only kept for `strengthened`.
                hidden = True
                continue
            void = fold.conj(g, fold.eq(x, y))
            if void is fold.TRUE:
                return False
            eqs.append(fold.neg(void))
        guard = fold.conj(*guards, *eqs)
        if guard is fold.FALSE:
            return False
        (self.hidden_orders if hidden else self.orders).append(Order(guard, earlier, later, False))
        return True

    def var(self, name: str) -> smt.ArithRef:
        v = self._vars.get(name)
        if v is None:
            v = self._vars[name] = smt.Int(name)
        return v

    @property
    def constraints(self) -> list[smt.BoolRef]:
        return self.encoding()

    def encoding(self) -> list[smt.BoolRef]:
        """The Z3 encoding, built on first use."""
        if self._constraints is None:
            out = []
            for o in self.orders:
                a, b = self.var(o.earlier), self.var(o.later)
                rel = a < b if o.strict else a <= b
                out.append(rel if o.guard is fold.TRUE else smt.Implies(o.guard, rel))
            self._constraints = out
        return self._constraints

    def strengthened(self) -> list[smt.BoolRef] | None:
        """The encoding with every order that hinges on a value the analysis
        could not follow (`x == ?n` in its guard) made to hold as if that
        value were the one it is compared with.  More orders leave fewer
        schedules: a schedule of this encoding is one whatever those values
        are.  None when such a value occurs other than in a positive
        equality."""
        out: list[smt.BoolRef] = []
        for o in self.orders + self.hidden_orders:
            guard = o.guard
            if unknown_vars(guard):
                assumed = _assume_equal(guard)
                if assumed is None:
                    return None
                guard = assumed
            a, b = self.var(o.earlier), self.var(o.later)
            rel = a < b if o.strict else a <= b
            out.append(rel if fold.truth(guard) is True else smt.Implies(guard, rel))
        return out

    def ordered(self, earlier: str, later: str, path: frozenset[int]) -> bool:
        """Is `earlier <= later` in every schedule of every path on which the
        conjuncts `path` (ids, see `fold.atoms`) hold?  True only when a
        chain of constraints proves it; False means "not proved"."""
        if self._succ is None:
            self._succ = {}
            for o in self.orders:
                self._succ.setdefault(o.earlier, []).append((o.later, fold.atoms(o.guard)))
                if _place(o.later) < _place(o.earlier):
                    self._forward = False
        key = (earlier, path)
        seen = self._reach.get(key)
        if seen is not None:
            return later in seen
        # The host times run in one chain (H0 < H1 < ...) and a call's start
        # follows its own: once a walk from `earlier` meets H_k with k at or
        # before `later`'s host time, `later` follows.  So each point's walk
        # stops at the host chain, and its earliest H is remembered: a host
        # wait orders every later op through one walk, not one walk each.
        target = _host_time(later)
        known = self._hbound.get(key)
        if target is not None and known is not None and known <= target:
            return True
        # Every order goes forward in call order (checked above): no chain to
        # `later` passes a point of a later call.
        bound = _place(later) if self._forward else None
        whole = True
        seen = {earlier}
        frontier = collections.deque([earlier])
        while frontier:
            for nxt, needs in self._succ.get(frontier.popleft(), ()):
                if nxt in seen or not needs <= path:
                    continue
                if nxt == later:
                    return True
                # Stopping at a later host time needs orders that only go forward.
                h = _host_index(nxt) if target is not None and self._forward else None
                if h is not None:
                    if known is None or h < known:
                        known = self._hbound[key] = h
                    if h <= target:  # type: ignore[operator]
                        return True
                    whole = False
                    continue
                if bound is not None and _place(nxt) > bound:
                    whole = False
                    continue
                seen.add(nxt)
                frontier.append(nxt)
        if whole:  # only a walk that ran out is remembered whole
            self._reach[key] = seen
        return later in seen


_END = 1 << 62


@functools.lru_cache(maxsize=1 << 16)
def _place(name: str) -> int:
    """The call a time variable belongs to (`H3`, `s3`, `e3`, `T3`, `W3`: call
    3; `H_end` after all): variables are named by call index."""
    digits = len(name) - len(name.rstrip("0123456789"))
    return int(name[-digits:]) if digits else _END


@functools.lru_cache(maxsize=1 << 16)
def _host_index(name: str) -> int | None:
    """For the host time H of a call (or `H_end`), its place in the chain."""
    tail = name.rsplit(":", 1)[-1]
    if tail == "H_end":
        return _END
    return _place(name) if tail[:1] == "H" else None


@functools.lru_cache(maxsize=1 << 16)
def _host_time(name: str) -> int | None:
    """The host time a point follows by one unconditional order: a host time
    itself, or a work item's start (`sK` follows `HK`); None for others."""
    tail = name.rsplit(":", 1)[-1]
    return _host_index(name) if tail[:1] == "H" else _place(name) if tail[:1] == "s" else None


def _assume_equal(guard: smt.BoolRef) -> smt.BoolRef | None:
    """`guard` with each equality on an unknown value replaced by true; None
    if an unknown value occurs anywhere else (under a negation, say)."""
    atoms: list[tuple[smt.ExprRef, smt.BoolRef]] = []
    stack: list[tuple[smt.ExprRef, bool]] = [(guard, True)]
    while stack:
        e, positive = stack.pop()
        if smt.is_eq(e) and unknown_vars(e):
            if not positive or any(unknown_vars(c) and not smt.is_const(c) for c in e.children()):
                return None
            atoms.append((e, smt.BoolVal(True)))
        elif smt.is_and(e) or smt.is_or(e):
            stack.extend((c, positive) for c in e.children())
        elif smt.is_not(e):
            stack.append((e.children()[0], not positive))
        elif unknown_vars(e):
            return None
    return smt.simplify(smt.substitute(guard, *atoms)) if atoms else guard


def _distinct(x: smt.ArithRef, y: smt.ArithRef) -> bool:
    """Are `x` and `y` literals of different values (`fold.eq` is false)?"""
    vx, vy = fold.value_of(x), fold.value_of(y)
    return vx is not None and vy is not None and vx != vy


def _is_null(stream: smt.ArithRef) -> bool:
    known = fold.value_of(stream)
    if known is not None:
        return known == 0
    return smt.is_int_value(stream) and stream.as_long() == 0


# (the paths on which a handle is alive at a call, whether a destroy the
# analysis could not follow may have ended it before)
Life = tuple[smt.BoolRef, bool]


class _Lives:
    """Is a handle still alive at a call?  Calls are listed in an order
    consistent with execution, so a destroy listed before the call that runs
    on its path, of the same handle, ran before it."""

    def __init__(self, sch: Schedule, calls: list[Call], special: frozenset[int]) -> None:
        self.sch = sch
        self.special = special
        self.destroys = [c for c in calls if c.args and (
            c.is_escape or (c.callee in DESTROYERS and len(c.args) == 1))]
        # Per destroy, once: its handle's unfollowed values, and that the
        # handle is none of the runtime's own streams (for stream destroys).
        self._unknown = [unknown_vars(d.args[0]) for d in self.destroys]
        self._not_special: dict[int, smt.BoolRef] = {}
        self._doubted: set[int] = set()
        self._pairs: set[tuple[int, int]] = set()  # (destroy, id of handle) doubted
        # The destroys by the literal handle each names, and those naming a
        # term: a call on literal handles is asked only about the destroys
        # that may name them (asking every destroy is quadratic).
        self._by_value: dict[int, list[int]] = {}
        self._symbolic: list[int] = []
        for k, d in enumerate(self.destroys):
            value = fold.value_of(d.args[0])
            if value is None:
                self._symbolic.append(k)
            else:
                self._by_value.setdefault(value, []).append(k)

    def _candidates(self, handles: tuple[tuple[smt.ArithRef, str], ...]) -> Sequence[int]:
        """The destroys that may end one of `handles`, in order: every one,
        but those `_distinct` from each handle."""
        values = [fold.value_of(handle) for handle, _ in handles]
        known = {v for v in values if v is not None}
        if len(known) < len(set(values)):  # a handle of no known value
            return range(len(self.destroys))
        return sorted([*self._symbolic, *(k for v in known
                                          for k in self._by_value.get(v, []))])

    def alive(self, c: Call, handles: tuple[tuple[smt.ArithRef, str], ...]) -> Life:
        kills: list[smt.BoolRef] = []
        doubt = False
        if fold.truth(c.guard) is False:
            return fold.TRUE, False  # never runs: nothing ends its handles
        # A handle's own unfollowed values, once per call, not per destroy.
        own = [unknown_vars(handle) for handle, _ in handles]
        for k in self._candidates(handles):
            d = self.destroys[k]
            if d.index >= c.index:
                break
            # `conj(d.guard, c.guard)` folds to false only where one of them
            # is false: it is built below only where it becomes a kill.
            if fold.truth(d.guard) is False:
                continue
            for (handle, kind), handle_vars in zip(handles, own, strict=True):
                if not d.is_escape and DESTROYERS[d.callee] != kind:
                    continue
                if _distinct(d.args[0], handle):
                    continue  # another known handle: `same` would fold to false
                # A destroy of the runtime's own stream (CU_STREAM_LEGACY) is
                # refused: it ends nothing.
                not_special = self._refusable(k) if kind == "stream" else fold.TRUE
                if not_special is fold.FALSE:
                    continue
                about = self._unknown[k] + handle_vars if d.args[0] is not handle else []
                if about and fold.value_of(d.args[0]) is None and fold.value_of(handle) is None:
                    # Two symbolic terms, one unfollowed: their equality never
                    # folds to a literal, so no term is built for it.  An
                    # unfollowed value may be it.
                    doubt = True
                    self._doubt(k, handle, about)
                    continue
                same = fold.eq(d.args[0], handle)
                hit = fold.conj(d.guard, c.guard, same, not_special)
                if hit is fold.FALSE:
                    continue
                if fold.truth(same) is not None:
                    about = []
                if d.is_escape or about:
                    # An escape may destroy it, an unfollowed value may be it.
                    doubt = True
                    self._doubt(k, handle, about)
                    continue
                kills.append(hit)
        return fold.neg(fold.disj(kills)), doubt

    def _doubt(self, k: int, handle: smt.ArithRef, about: list[smt.ExprRef]) -> None:
        """Destroy `k` may end `handle`: the values that hinge on, each listed
        once (a loop's destroys name the same values for every call)."""
        if (k, id(handle)) in self._pairs:
            return
        self._pairs.add((k, id(handle)))
        d = self.destroys[k]
        for v in about + ([d.flags[0]] if d.flags else []):
            key = v.get_id()
            if key not in self._doubted:
                self._doubted.add(key)
                self.sch.doubts.append(v)

    def _refusable(self, k: int) -> smt.BoolRef:
        term = self._not_special.get(k)
        if term is None:
            term = self._not_special[k] = _not_special(self.destroys[k].args[0], self.special)
        return term


def _not_special(value: smt.ArithRef, special: frozenset[int]) -> smt.BoolRef:
    """`value` is none of the runtime's own stream handles."""
    return fold.conj(*(fold.neg(fold.eq(value, k)) for k in sorted(special)))


def _no_handle(stream: smt.ArithRef, special: frozenset[int]) -> smt.BoolRef:
    """Where `stream` is an integer (not null, not one of the runtime's own
    stream handles `special`, not a handle the runtime made, which are
    numbered from HANDLE_BASE): the wrapper rejects it and the work never
    runs.  Only for values the analysis follows; an unfollowed one may be any
    handle."""
    known = fold.value_of(stream)
    if known is not None and fold.width_of(stream) is None:
        # A literal, decided here: Z3's simplifier costs a millisecond.
        return fold.boolean(0 < known < HANDLE_BASE and known not in special)
    if unknown_vars(stream) or not smt.is_int(stream):
        return fold.FALSE
    values = [fold.value_of(leaf) for leaf in leaves(stream)]
    literals = [v for v in values if v is not None]
    if len(literals) == len(values) and not any(0 < v < HANDLE_BASE and v not in special
                                                   for v in literals):
        return fold.FALSE  # each value it may take is a handle, null or the runtime's own
    bad = smt.simplify(smt.And(stream > 0, stream < HANDLE_BASE,
                             *(stream != k for k in sorted(special))))
    return fold.TRUE if smt.is_true(bad) else fold.FALSE if smt.is_false(bad) else bad


def encode(calls: list[Call],
           special: frozenset[int] = PROFILES["cuda"].special_streams) -> Schedule:
    """The schedule constraints of one function's calls (in list order).
    `special`: the profile's own stream handles (`RuntimeProfile.
    special_streams`; cuda's by default): each a stream of its own, ordered
    with itself only, like the null stream (streams mgpuStreamCreate makes
    are non-blocking)."""
    sch = Schedule()
    if not calls:
        return sch
    true = fold.TRUE
    prefix = f"{calls[0].func}:"
    times = [f"{prefix}H{c.index}" for c in calls] + [f"{prefix}H_end"]
    for a, b in zip(times, times[1:], strict=False):
        sch.order(true, a, b, strict=True)
    after = {c.index: times[k + 1] for k, c in enumerate(calls)}
    lives = _Lives(sch, calls, special)
    for k, c in enumerate(calls):
        sch.host[c.index] = times[k]
        if c.is_host_access:
            sch.items[c.index] = Item(c, times[k], times[k], None)
        elif is_work(c.callee, len(c.args)):
            s, e = f"{prefix}s{c.index}", f"{prefix}e{c.index}"
            stream = arg_of(c.callee, c.args, "stream")
            stream = fold.lit(0) if stream is None else stream
            sch.order(true, times[k], s)
            sch.order(true, s, e, strict=True)
            if host_synchronous(c.callee, len(c.args), _is_null(stream)):
                sch.order(true, e, after[c.index], strict=True)
            streamless = ignores_stream(c.callee)  # it runs whatever became of it
            alive, doubt = (true, False) if streamless else \
                lives.alive(c, ((stream, "stream"),))
            dead = fold.neg(alive) if streamless else \
                fold.disj([fold.neg(alive), _no_handle(stream, special)])
            sch.items[c.index] = Item(c, s, e, stream, dead, doubt)
    # mgpuMemAlloc ignores its stream (every upstream wrapper allocates at
    # once): it waits for nothing queued there, so it is no stream work.
    # Its host synchrony (above) orders it before what the host does next.
    work = [it for it in sch.items.values()
            if it.stream is not None and not allocates_at_once(it.call.callee)]
    _stream_orders(sch, work)
    _event_orders(sch, calls, work, after, prefix, lives)
    return sch


def _stream_orders(sch: Schedule, work: list[Item]) -> None:
    """Work on one stream runs in issue order: each later item that may be
    on the same stream starts after each earlier one ends.  Every pair is
    quadratic on long programs, so two items on different known handles
    are skipped without building a term, and on a known handle the first
    later item issued on every path stands for those after it (its own
    orders carry them on: end <= its start < its end <= theirs)."""
    known = [fold.value_of(w.stream) for w in work]
    by_value: dict[int, list[int]] = {}
    unknown: list[int] = []
    for k, v in enumerate(known):
        (unknown if v is None else by_value.setdefault(v, [])).append(k)
    for i, w1 in enumerate(work):
        v1 = known[i]
        if v1 is None:
            later = list(range(i + 1, len(work)))
        else:
            bucket = by_value[v1]
            same: list[int] = []
            for k in bucket[bisect.bisect_right(bucket, i):]:
                same.append(k)
                if work[k].call.guard is fold.TRUE:
                    break
            later = sorted(same + unknown[bisect.bisect_right(unknown, i):])
        for k in later:
            w2 = work[k]
            sch.order_if_same((w1.call.guard, w2.call.guard),
                              ((w1.stream, w2.stream),), w1.end, w2.start)  # type: ignore[arg-type]


@dataclass
class _Record:
    """An `mgpuEventRecord` and the time `t` it completes; it took effect
    where `alive` holds (its event and stream not destroyed before it)."""

    call: Call
    t: str
    alive: smt.BoolRef
    doubt: bool


def _replaced(records: list[_Record], r: _Record, before: int, event: smt.ArithRef
              ) -> tuple[tuple[tuple[smt.BoolRef, smt.ArithRef, smt.ArithRef], ...], bool]:
    """The records of `event` after `r` and before call `before` that took
    effect: each one replaces `r` (an event holds its latest record only);
    and whether one's effect hinges on an unfollowed destroy."""
    later = [r2 for r2 in records if r.call.index < r2.call.index < before]
    return (tuple((fold.conj(r2.call.guard, r2.alive), r2.call.args[0], event) for r2 in later),
            any(r2.doubt for r2 in later))


class _ByStream:
    """Work items by the literal stream they are on (the others may be on
    any): the items an event call or a synchronize can be ordered with are
    looked up, not scanned for; two different literal streams give no order
    (`order_if_same` keeps none), so the orders are the same, in the same
    order."""

    def __init__(self, work: list[Item]) -> None:
        self.work = work
        self.by_value: dict[int, list[Item]] = {}
        self.any: list[Item] = []
        for w in work:
            v = fold.value_of(w.stream)
            (self.any if v is None else self.by_value.setdefault(v, [])).append(w)

    def on(self, stream: smt.ArithRef) -> list[Item]:
        v = fold.value_of(stream)
        if v is None:
            return self.work
        return sorted((*self.by_value.get(v, ()), *self.any), key=lambda w: w.call.index)

    def before(self, stream: smt.ArithRef, index: int) -> list[Item]:
        return [w for w in self.on(stream) if w.call.index < index]

    def after(self, stream: smt.ArithRef, index: int) -> list[Item]:
        return [w for w in self.on(stream) if w.call.index > index]


def _event_orders(sch: Schedule, calls: list[Call], work: list[Item], after: dict[int, str],
                  prefix: str, lives: _Lives) -> None:
    """Records, waits and host synchronizations (CUDA wrapper semantics): a
    record completes after its stream's earlier work and waits; a wait or
    synchronize sees the latest record of its event when it is issued.  A
    call on a destroyed handle orders nothing."""
    true = fold.TRUE
    records: list[_Record] = []
    # Each stream wait's release point `W`: the time its stream may go on,
    # after every record the wait saw.  Work after the wait on its stream and
    # a later record or synchronize of that stream wait for `W`: one order
    # per record and one per later call, instead of one per pair of them
    # (the same constraints: `W` is constrained by nothing else).
    released: list[tuple[Call, str]] = []
    by_stream = _ByStream(work)

    def seen(r: _Record, c: Call, event: smt.ArithRef, live: Life, later: str) -> bool:
        # `c` (alive where `live` says) sees record `r` of `event`: `later` after
        # it.  False when no order can come of it.
        if _distinct(r.call.args[0], event):
            return False  # two different known handles: no order, and no terms to build
        unless, doubt = _replaced(records, r, c.index, event)
        return sch.order_if_same((r.call.guard, c.guard, r.alive, live[0]),
                                 ((r.call.args[0], event),), r.t, later, unless,
                                 doubt or r.doubt or live[1])

    def queued(c: Call, stream: smt.ArithRef, until: str, live: Life) -> None:
        # Waits queued on `stream` before `c` are commands of it too: they
        # hold it until the record each one saw.
        for wt, point in released:
            if not _distinct(wt.args[0], stream):
                sch.order_if_same((live[0], c.guard), ((wt.args[0], stream),), point, until,
                                  doubt=live[1])

    # Which call orders what comes from the runtime table (`Effect.orders`);
    # the argument positions are the table's (event, stream), (stream, event),
    # (event), (stream): tests/invariants/test_runtime_table.py.
    for c in calls:
        kind = order_kind(c.callee, len(c.args))
        if kind == "record":
            t = f"{prefix}T{c.index}"
            sch.order(true, sch.host[c.index], t)
            for w in by_stream.before(c.args[1], c.index):
                sch.order_if_same((w.call.guard, c.guard), ((w.stream, c.args[1]),),  # type: ignore[arg-type]
                                  w.end, t)
            # Orders into `t` are harmless where the record does nothing.
            queued(c, c.args[1], t, (true, False))
            records.append(_Record(c, t, *lives.alive(c, ((c.args[0], "event"),
                                                          (c.args[1], "stream")))))
        elif kind == "wait-event":
            live = lives.alive(c, ((c.args[0], "stream"), (c.args[1], "event")))
            point = f"{prefix}W{c.index}"
            # Records seen (not `any`: each must add its order).
            if sum(seen(r, c, c.args[1], live, later=point) for r in records):
                released.append((c, point))
                for w in by_stream.after(c.args[0], c.index):
                    sch.order_if_same((w.call.guard,), ((w.stream, c.args[0]),),  # type: ignore[arg-type]
                                      point, w.start)
        elif kind == "sync-event":
            live = lives.alive(c, ((c.args[0], "event"),))
            for r in records:
                seen(r, c, c.args[0], live, later=after[c.index])
        elif kind == "sync-stream":
            live = lives.alive(c, ((c.args[0], "stream"),))
            for w in by_stream.before(c.args[0], c.index):
                sch.order_if_same((w.call.guard, c.guard, live[0]),
                                  ((w.stream, c.args[0]),),  # type: ignore[arg-type]
                                  w.end, after[c.index], doubt=live[1])
            queued(c, c.args[0], after[c.index], live)


def describe(sch: Schedule, model: smt.ModelRef) -> list[str]:
    """The schedule a model picked: what ran when, on the path it took."""
    rows = []
    for it in sch.items.values():
        if not smt.is_true(model.eval(it.call.guard, model_completion=True)):
            continue
        start = smt.int_in(model, sch.var(it.start))
        end = smt.int_in(model, sch.var(it.end))
        if it.stream is None:
            where = "host"
        else:
            sid = smt.int_in(model, it.stream)
            where = ("null stream" if sid == 0 else f"stream#{sid & 0xFFFF}" if sid > 0
                     else "an opaque stream (from an unconverted op)")
        span = f"t={start}" if start == end else f"t={start}..{end}"
        rows.append((start, end, f"{span}: {it.call.callee} from {it.call.source_op or '?'} "
                     f"on {where}"))
    return [r for _, _, r in sorted(rows)]
