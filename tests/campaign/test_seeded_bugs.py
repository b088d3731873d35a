"""Seeded bugs in real mlir-opt-19 output are each found and shrunk (issue 4).

Regression mode: a bug counts only where real mlir-opt-19 does not violate
the same invariant on the same program, so upstream's own leaks cannot
stand in for the seeded bug.  `scripts/mutant_table.py` prints the table.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
from gpu_alloc_verify.verify.invariants.options import CAMPAIGN_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from tests.conftest import need_mlir_opt

BUGS = {
    "drop-stream-destroy": "stream-no-leak",
    "drop-event-destroy": "event-no-leak",
    "flip-shared-flag": "host-shared-flag",
    "sync-alloc-stream": "sync-alloc-no-stream",
    "destroy-before-sync": "stream-no-use-after-destroy",
    "drop-synchronize": "async-order",
}


# The two that shrink longest (15-35 s each) run nightly (`pytest -m nightly`).
SLOW_BUGS = ("destroy-before-sync", "drop-synchronize")


@pytest.mark.slow
@pytest.mark.parametrize("bug", [pytest.param(b, marks=pytest.mark.nightly) if b in SLOW_BUGS
                                 else b for b in sorted(BUGS)])
def test_seeded_bug_found_within_300_and_shrunk(bug: str, mutant) -> None:
    real = need_mlir_opt(19)
    path = mutant(bug)
    lowering = MlirOptLowering(f"mlir-opt:{path}", path)
    invariants = tuple(i for i in active_invariants() if i != "differential")
    report = run_fuzz(FuzzOptions(
        [lowering], CheckOptions(invariants, truth=CAMPAIGN_TRUTH), seed=0, max_examples=300,
        batch_size=25,
        gen=GenConfig(max_ops=10).supported_by(19),
        baseline=MlirOptLowering("mlir-opt-19", real)))
    key = (lowering.spec, BUGS[bug])
    assert key in report.found, sorted(report.found)
    assert report.first_seen[key] <= 300
    # drop-synchronize: since a host wait orders its work before every later
    # GPU op, the first program found is two memsets of one buffer on two
    # streams (7 ops, none removable), not the host read after a memset (5).
    bound = 7 if bug == "drop-synchronize" else 5
    assert report.found[key].program.op_count() <= bound, report.found[key].program.to_mlir()


# Issue 15: the differential oracle alone, on a default campaign (kernels,
# host buffers, arguments, leftover ops and all).  A bug in how copies are
# ordered shows only where the lowering lowers copies: upstream 19 lowers
# an async copy with exactly one dependency and leaves the rest behind, so
# that bug is seeded into `xdsl:split-api`, which lowers every copy.
def _mutation(mode: str) -> Callable[[list[str]], list[str]]:
    spec = importlib.util.spec_from_file_location(
        "mutating_mlir_opt", Path(__file__).parents[1] / "fixtures" / "mutating_mlir_opt.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MODES[mode]


@dataclass
class MutatedLowering:
    """An in-process lowering with one of the fixture's mutations applied to
    its output text (the same edits the mutating mlir-opt wrapper makes)."""

    inner: Lowering
    mode: str
    spec: str = ""

    def __post_init__(self) -> None:
        self.spec = f"{self.inner.spec}+{self.mode}"
        self._edit = _mutation(self.mode)

    def describe(self) -> str:
        return f"{self.inner.describe()} with {self.mode}"

    def external_tool(self) -> str | None:
        return self.inner.external_tool()

    def reading_tool(self) -> str | None:
        return self.inner.reading_tool()

    def lower_batch(self, programs, **kw):  # noqa: ANN001, ANN003, ANN201 - the protocol's
        return [replace(o, lowered="\n".join(self._edit(o.lowered.split("\n"))), module=None)
                if o.status == "ok" and o.lowered else o
                for o in self.inner.lower_batch(programs, **kw)]


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "base"), [("drop-synchronize", "mlir-opt-19"),
                                           ("copy-before-producer", "xdsl:split-api")])
def test_differential_alone_finds_within_300(bug: str, base: str, mutant) -> None:
    if base.startswith("mlir-opt"):
        real: Lowering = MlirOptLowering(base, need_mlir_opt(19))
        path = mutant(bug)
        lowering: Lowering = MlirOptLowering(f"mlir-opt:{path}", path)
    else:
        real = resolve(base)
        lowering = MutatedLowering(real, bug)
    report = run_fuzz(FuzzOptions(
        [lowering], CheckOptions(("differential",), truth=CAMPAIGN_TRUTH), seed=0,
        max_examples=300, batch_size=50,
        gen=GenConfig(), shrink=False, baseline=real))
    key = (lowering.spec, "differential")
    assert key in report.found, sorted(report.found)
    assert report.first_seen[key] <= 300
