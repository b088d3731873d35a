"""A property test parametrized by the plugin over `--gav-lowering` (default:
mlir-opt-19): e.g. `pytest tests/api/test_plugin_property.py --gav-lowering xdsl:split-api
--gav-lowering mlir-opt-22 --gav-runtime hip --hypothesis-show-statistics`."""

from __future__ import annotations

import pytest
from hypothesis import given

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.model.program import Program


@pytest.mark.slow
@given(programs(GenConfig(max_ops=8)))
def test_lowering_never_crashes_and_every_verdict_is_decided(
        lowering, runtime_profile: str, program: Program) -> None:
    outcome = lowering.lower_batch([program])[0]
    j = judge(program, outcome, lowering.spec, CheckOptions(runtime=runtime_profile))
    assert j.results["lowering-no-crash"].verdict == "holds", j.diagnostics
    unknown = {i: r.reason for i, r in j.results.items() if r.verdict == "unknown"
               # kernels, host buffers, buffers passed in: not run (yet), by design
               and not r.reason.startswith("the reference semantics does not run")}
    # An unknown always names what the analysis could not follow ...
    assert all(reason.strip() for reason in unknown.values()), unknown
    # ... and a program the lowering converted completely leaves nothing
    # unfollowed: every invariant is decided (no solver gives up this small).
    if j.results["lowering-complete"].verdict == "holds":
        assert not unknown, unknown
