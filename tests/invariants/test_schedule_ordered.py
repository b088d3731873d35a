"""`Schedule.ordered`: chains of constraints, walked with the host chain as
a shortcut and pruned at `later`'s call (the scale fix of issue 26).  The
answers must be exactly those of a plain walk of the graph."""

from __future__ import annotations

import collections
import random

from gpu_alloc_verify.verify.invariants.schedule import Schedule
from gpu_alloc_verify.verify.model import fold


def _plain(sch: Schedule, a: str, b: str) -> bool:
    succ: dict[str, list[str]] = {}
    for o in sch.orders:
        if o.guard is fold.TRUE:
            succ.setdefault(o.earlier, []).append(o.later)
    seen, todo = {a}, collections.deque([a])
    while todo:
        for n in succ.get(todo.popleft(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return b in seen


def _host_chain(n: int) -> tuple[Schedule, list[str]]:
    """A host chain H0 < ... < H_end, each call's s/e after its H."""
    sch = Schedule()
    t = fold.TRUE
    hs = [f"f:H{i}" for i in range(n)] + ["f:H_end"]
    for a, b in zip(hs, hs[1:], strict=False):
        sch.order(t, a, b, strict=True)
    for i in range(n):
        sch.order(t, f"f:H{i}", f"f:s{i}")
        sch.order(t, f"f:s{i}", f"f:e{i}", strict=True)
    return sch, hs


def _random_schedule(rng: random.Random, n: int, backward: bool) -> Schedule:
    """The host chain and random orders between points of calls (forward,
    or any way with `backward`)."""
    sch, hs = _host_chain(n)
    t = fold.TRUE
    points = [f"f:{k}{i}" for i in range(n) for k in "seTW"] + hs
    for _ in range(n * 2):
        a, b = rng.sample(points, 2)
        if backward or _key(a) <= _key(b):
            sch.order(t, a, b)
    return sch


def _key(name: str) -> int:
    tail = name.split(":")[1]
    return 1 << 30 if tail == "H_end" else int(tail[1:])


def test_ordered_agrees_with_a_plain_walk() -> None:
    rng = random.Random(26)
    for trial in range(60):
        sch = _random_schedule(rng, 12, backward=trial % 3 == 0)
        points = sorted({o.earlier for o in sch.orders} | {o.later for o in sch.orders})
        for a in points:
            for b in points:
                if a != b:
                    assert sch.ordered(a, b, frozenset()) == _plain(sch, a, b), (trial, a, b)


def test_a_host_wait_orders_every_later_call_through_one_walk() -> None:
    n = 3000
    sch, _ = _host_chain(n)
    sch.order(fold.TRUE, "f:e0", "f:H1", strict=True)  # call 0 is host-synchronous
    assert all(sch.ordered("f:e0", f"f:s{j}", frozenset()) for j in range(1, n))
    assert not sch.ordered("f:e1", "f:s0", frozenset())
