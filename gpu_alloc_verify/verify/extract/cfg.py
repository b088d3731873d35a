"""Unrolling a region's control-flow graph into a DAG of block copies.

A block of a loop is copied once per iteration: a copy is the block with
the iteration counters of the natural loops that contain it (outermost
first).  A back edge to a loop header increments that loop's counter; an
edge that leaves a loop drops it; entering a loop starts it at 0.  A back
edge past `bound` iterations is not followed: it is a *cut*, a set of
paths the analysis did not explore, which `verify.extract.calls` turns into an
`unknown` verdict unless a violation is shown on the explored paths.

Irreducible control flow (a cycle entered other than through one header)
is not unrolled: the whole region is a cut.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

MAX_COPIES = 4000  # past this many block copies the region is a cut


@dataclass(frozen=True)
class Node:
    block: Hashable
    counters: tuple[int, ...] = ()


@dataclass
class Plan:
    """Block copies in an order consistent with every path, and for each copy
    the target of each successor slot (None: a cut back edge)."""

    order: list[Node] = field(default_factory=list)
    out: dict[Node, list[Node | None]] = field(default_factory=dict)
    loops_of: dict[Hashable, tuple[Hashable, ...]] = field(default_factory=dict)
    failure: str | None = None  # why the region could not be unrolled at all


def _back_edges(entry: Hashable, succ: dict[Hashable, list[Hashable]]
                ) -> set[tuple[Hashable, Hashable]]:
    """Edges to a block on the depth-first stack (iteratively, no recursion limit)."""
    back: set[tuple[Hashable, Hashable]] = set()
    on_stack: set[Hashable] = {entry}
    seen: set[Hashable] = {entry}
    stack: list[tuple[Hashable, int]] = [(entry, 0)]
    while stack:
        block, i = stack[-1]
        nexts = succ.get(block, [])
        if i < len(nexts):
            stack[-1] = (block, i + 1)
            s = nexts[i]
            if s in on_stack:
                back.add((block, s))
            elif s not in seen:
                seen.add(s)
                on_stack.add(s)
                stack.append((s, 0))
        else:
            on_stack.discard(block)
            stack.pop()
    return back


def _reaches_avoiding(entry: Hashable, target: Hashable, avoid: Hashable,
                      succ: dict[Hashable, list[Hashable]]) -> bool:
    if entry == avoid:
        return False
    seen = {entry}
    stack = [entry]
    while stack:
        b = stack.pop()
        if b == target:
            return True
        for s in succ.get(b, []):
            if s != avoid and s not in seen:
                seen.add(s)
                stack.append(s)
    return False


def _loop_bodies(back: set[tuple[Hashable, Hashable]],
                 pred: dict[Hashable, list[Hashable]]) -> dict[Hashable, set[Hashable]]:
    """Natural loop of each header: the header and every block that reaches a
    latch without passing the header."""
    bodies: dict[Hashable, set[Hashable]] = {}
    for latch, header in back:
        body = bodies.setdefault(header, {header})
        stack = [latch]
        while stack:
            b = stack.pop()
            if b in body:
                continue
            body.add(b)
            stack.extend(pred.get(b, []))
    return bodies


IRREDUCIBLE = "irreducible control flow (a cycle with more than one entry)"


def natural_loops(entry: Hashable, succ: dict[Hashable, list[Hashable]]
                  ) -> tuple[set[tuple[Hashable, Hashable]], dict[Hashable, set[Hashable]]] | None:
    """Back edges and the natural loop of each header; None when the
    control flow is irreducible."""
    pred: dict[Hashable, list[Hashable]] = {}
    for b, ss in succ.items():
        for s in ss:
            pred.setdefault(s, []).append(b)
    back = _back_edges(entry, succ)
    for latch, header in back:
        if _reaches_avoiding(entry, latch, header, succ):
            return None
    return back, _loop_bodies(back, pred)


def plan(blocks: Sequence[Hashable], succ: dict[Hashable, list[Hashable]],
         bound: int) -> Plan:
    entry = blocks[0]
    result = Plan()
    loops = natural_loops(entry, succ)
    if loops is None:
        result.failure = IRREDUCIBLE
        return result
    back, bodies = loops
    # Loops containing each block, outermost (largest) first.
    headers = sorted(bodies, key=lambda h: -len(bodies[h]))
    result.loops_of = {b: tuple(h for h in headers if b in bodies[h]) for b in blocks}

    def target(node: Node, s: Hashable) -> Node | None:
        src_loops = result.loops_of.get(node.block, ())
        counters = dict(zip(src_loops, node.counters, strict=True))
        out: list[int] = []
        for h in result.loops_of.get(s, ()):
            if h not in counters:
                out.append(0)  # entering the loop
            elif s == h and (node.block, s) in back:
                if counters[h] + 1 > bound:
                    return None
                out.append(counters[h] + 1)
            else:
                out.append(counters[h])
        return Node(s, tuple(out))

    start = Node(entry, ())
    indegree: dict[Node, int] = {start: 0}
    work = [start]
    while work:
        node = work.pop()
        if node in result.out:
            continue
        targets = [target(node, s) for s in succ.get(node.block, [])]
        result.out[node] = targets
        for t in targets:
            if t is None:
                continue
            indegree[t] = indegree.get(t, 0) + 1
            if t not in result.out:
                work.append(t)
        if len(result.out) > MAX_COPIES:
            result.failure = f"more than {MAX_COPIES} block copies after unrolling loops"
            return result
    # Kahn's order; ties by block position keep straight-line code in text order.
    position = {b: i for i, b in enumerate(blocks)}
    ready = [start]
    while ready:
        ready.sort(key=lambda n: (n.counters, position.get(n.block, 0)), reverse=True)
        node = ready.pop()
        result.order.append(node)
        for t in result.out[node]:
            if t is None:
                continue
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    return result
