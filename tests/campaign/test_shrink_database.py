"""What a shrink round that chases one bug leaves in the example database:
its minimal example, and every other bug's stored example, in the primary
corpus; not the steps it took on the way (tomorrow's search replays that
corpus shortest first and stops at its max_examples)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes

from gpu_alloc_verify.generators.hypothesis_private import database_key
from gpu_alloc_verify.verify.campaign.shrink import _KeepOthers


def test_a_chase_keeps_its_minimal_example_and_the_others_not_its_steps() -> None:
    store = InMemoryExampleDatabase()
    calls: list[list[int]] = []

    @settings(database=_KeepOthers(store), max_examples=300, deadline=None,
              phases=[Phase.reuse, Phase.generate, Phase.shrink],
              suppress_health_check=list(HealthCheck))
    @seed(1)  # inside settings, as the campaign does: seed alone would drop the database
    @given(st.lists(st.integers(0, 10_000), min_size=3))
    def chase(xs: list[int]) -> None:
        calls.append(xs)
        assert sum(xs) < 5_000

    key = database_key(chase)
    # Another bug's counterexample, which this round's property does not fail:
    # Hypothesis's reuse phase deletes it, the round must not.
    other = choices_to_bytes((7,))
    store.save(key, other)

    with pytest.raises(AssertionError):
        chase()

    primary = set(store.fetch(key))
    assert other in primary
    # One example of this bug, the minimal one, from many shrink steps.
    (mine,) = primary - {other}
    assert len(calls) > 20
    assert sum(calls[-1]) >= 5_000
    assert len(mine) <= min(len(choices_to_bytes(tuple(c))) for c in calls
                            if sum(c) >= 5_000) + 8
