"""Issue 40 part B: the pipeline portfolio a default campaign spreads its
programs over (verify.lowerings.portfolio).

Against the real tools: a version without a pass leaves its pipeline out
(16 has no gpu-lower-to-nvvm-pipeline, 19 has), and the portfolio lowers
each program exactly as its own pipeline run alone does.  The pick itself:
stable per text, and a pipeline that wants an op is offered only to a
program holding it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.portfolio import (
    ENTRIES,
    PORTFOLIO,
    Entry,
    PortfolioLowering,
    available,
    pick,
)
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.source.user_file import from_text
from tests.conftest import need_mlir_opt

CORPUS = Path(__file__).parents[1] / "corpus"
NVVM = "gpu-lower-to-nvvm-pipeline"


def test_a_version_without_a_pass_leaves_its_pipeline_out() -> None:
    old, new = available(need_mlir_opt(16)), available(need_mlir_opt(19))
    assert not any(NVVM in e.pipeline for e in old)
    assert any(NVVM in e.pipeline for e in new)
    # everything else is there on both: the async chain, outlining, scf-to-cf, the region pass
    assert [e for e in new if NVVM not in e.pipeline] == list(old)


def test_the_pick_is_stable_and_offers_a_wanting_pipeline_only_where_it_fits() -> None:
    plain = "func.func @f() {\n  %t = gpu.wait async\n  gpu.wait [%t]\n  return\n}\n"
    picks = {pick(plain + "// " + str(k), ENTRIES).pipeline for k in range(60)}
    assert not any("async-to-async-runtime" in p or "outlining" in p for p in picks)
    assert len(picks) >= 3  # the digest spreads texts over the pipelines that fit
    assert pick(plain, ENTRIES) == pick(plain, ENTRIES)
    launch = plain.replace("return", "gpu.launch blocks(%a, %b, %c) in (%x = %c1, %y = %c1, "
                           "%z = %c1) threads(%d, %e, %f) in (%u = %c1, %v = %c1, %w = %c1) "
                           "{\n gpu.terminator\n }\n  return")
    only = (Entry(DEFAULT_PIPELINE, ("async.execute",)), Entry("gpu-kernel-outlining,"
                                                               + DEFAULT_PIPELINE,
                                                               ("gpu.launch ",)))
    assert pick(launch, only).pipeline.startswith("gpu-kernel-outlining")
    assert pick(plain, only).pipeline == DEFAULT_PIPELINE  # none fits: the first, never none


@pytest.mark.slow
def test_each_program_is_lowered_as_its_pipeline_alone_lowers_it() -> None:
    tool = need_mlir_opt(19)
    lowering = resolve("mlir-opt-19", PORTFOLIO)
    assert isinstance(lowering, PortfolioLowering) and lowering.spec == "mlir-opt-19"
    assert lowering.pipeline_error() is None
    files = sorted(CORPUS.glob("async_*.mlir"))[:3] + sorted(CORPUS.glob("cuda_*.mlir"))[:3]
    sources = [from_text(f.read_text(), f.name, tool) for f in files]
    outcomes = lowering.lower_batch(sources)
    pipelines = [lowering.pipeline_for(s) for s in sources]
    assert len(set(pipelines)) >= 2, pipelines  # the batch really was split
    for source, outcome, pipeline in zip(sources, outcomes, pipelines, strict=True):
        alone = lowering.member(pipeline).lower_batch([source])[0]
        assert (outcome.status, outcome.lowered, outcome.entry) == \
            (alone.status, alone.lowered, alone.entry), (source.name, pipeline)
