"""Reachability over graphs that may be deep or cyclic, without recursion.

A 1,200-op chain of tokens is a 1,200-deep recursion for a naive walk; a
token that flows around a loop is a cycle.  Tarjan's algorithm, written
with an explicit stack, gives the strongly connected components in reverse
topological order, so each node's reachable facts are its component's own
plus those of the components after it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

N = TypeVar("N", bound=Hashable)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def components(nodes: Iterable[N], succ: Callable[[N], Iterable[N]]) -> list[list[N]]:
    """Strongly connected components, each listed after every one it reaches."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    out: list[list[N]] = []
    work: list[tuple[N, list[N]]] = []  # the walk's own stack: node, successors left

    def enter(n: N) -> None:
        index[n] = low[n] = len(index)
        stack.append(n)
        on_stack.add(n)
        work.append((n, list(succ(n))))

    for root in nodes:
        if root in index:
            continue
        enter(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    enter(nxt)
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp: list[N] = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                out.append(comp)
    return out


def reachable_facts(nodes: Iterable[N], succ: Callable[[N], Iterable[N]],
                    own: Callable[[N], dict[K, V]]) -> dict[N, dict[K, V]]:
    """For each node, the facts `own` gives of every node it reaches (itself
    included), keyed so that a fact reached twice is kept once, in the order
    first met."""
    comp_of: dict[N, int] = {}
    facts: list[dict[K, V]] = []
    for k, comp in enumerate(components(nodes, succ)):
        merged: dict[K, V] = {}
        for n in comp:
            comp_of[n] = k
            merged.update(own(n))
        for n in comp:
            for m in succ(n):
                if comp_of[m] != k:  # an earlier component: already final
                    merged.update(facts[comp_of[m]])
        facts.append(merged)
    return {n: facts[k] for n, k in comp_of.items()}
