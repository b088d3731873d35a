"""Generator coverage (issue 4): a 1,000-example run reaches every feature."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, seed, settings

from gpu_alloc_verify.generators.features import KNOWN_FEATURES, features
from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.model.program import Program


@pytest.mark.slow
def test_thousand_examples_reach_every_feature() -> None:
    counts: Counter[str] = Counter()

    @seed(0)
    @settings(max_examples=1000, database=None, derandomize=False)
    @given(programs(GenConfig(max_ops=12, max_functions=2)))
    def run(p: Program) -> None:
        counts.update(features(p))

    run()
    # Every feature but the rarest dependency counts of buffer ops.
    rare = {f"{k}.deps=3" for k in ("dealloc", "memset", "memcpy")}
    missing = [f for f in KNOWN_FEATURES if counts[f] == 0 and f not in rare]
    assert not missing, missing
    for kind in ("alloc", "wait", "dealloc", "memset", "memcpy"):
        assert counts[f"{kind}.sync"] and counts[f"{kind}.async"]
    assert all(counts[f"alloc.deps={n}"] and counts[f"wait.deps={n}"] for n in range(4))
    assert counts["alloc.host_shared=true"] and counts["alloc.host_shared=false"]
    assert counts["scf.if"] and counts["scf.for"] and counts["functions=2"]
