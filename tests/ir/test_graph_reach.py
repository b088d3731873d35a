"""verify/ir/graph.py: reachability without recursion, cycles included."""

from __future__ import annotations

import sys

from gpu_alloc_verify.verify.ir.graph import components, reachable_facts


def test_a_chain_deeper_than_the_recursion_limit() -> None:
    n = 4 * sys.getrecursionlimit()
    succ = {i: [i + 1] for i in range(n - 1)}
    reach = reachable_facts(range(n), lambda i: succ.get(i, []),
                            lambda i: {"end": i} if i == n - 1 else {})
    assert reach[0] == {"end": n - 1}
    assert all(reach[i] == {"end": n - 1} for i in range(0, n, 97))


def test_a_cycle_shares_its_facts_and_passes_on_what_follows() -> None:
    # 0 -> 1 -> 2 -> 1 (a loop-carried token), 2 -> 3
    succ = {0: [1], 1: [2], 2: [1, 3], 3: []}
    own = {0: {"a": 0}, 1: {"b": 1}, 2: {}, 3: {"d": 3}}
    reach = reachable_facts(succ, succ.__getitem__, own.__getitem__)
    assert reach[3] == {"d": 3}
    assert reach[1] == reach[2] == {"b": 1, "d": 3}
    assert reach[0] == {"a": 0, "b": 1, "d": 3}


def test_components_come_after_the_ones_they_reach() -> None:
    succ = {"a": ["b"], "b": ["c", "a"], "c": ["d"], "d": ["c"], "e": []}
    order = components(succ, succ.__getitem__)
    where = {n: k for k, comp in enumerate(order) for n in comp}
    assert sorted(map(sorted, order)) == [["a", "b"], ["c", "d"], ["e"]]
    assert where["c"] < where["a"]  # {c, d} is reached from {a, b}: listed first


def test_facts_met_twice_are_kept_once_in_first_order() -> None:
    # a diamond: 0 -> 1, 0 -> 2, both -> 3
    succ = {0: [1, 2], 1: [3], 2: [3], 3: []}
    own = {0: {}, 1: {"x": 1}, 2: {"x": 1, "y": 2}, 3: {"z": 3}}
    reach = reachable_facts(succ, succ.__getitem__, own.__getitem__)
    assert reach[0] == {"x": 1, "y": 2, "z": 3}
    assert list(reach[1]) == ["x", "z"]
