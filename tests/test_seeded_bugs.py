"""Seeded bugs in real mlir-opt-19 output are each found and shrunk (issue 4).

Regression mode: a bug counts only where real mlir-opt-19 does not violate
the same invariant on the same program, so upstream's own leaks cannot
stand in for the seeded bug.  `scripts/mutant_table.py` prints the table.
"""

from __future__ import annotations

import pytest

from generators.programs import GenConfig
from tests.conftest import need_mlir_opt
from verify.fuzz import FuzzOptions, run_fuzz
from verify.lowerings.mlir_opt import MlirOptLowering
from verify.pipeline import active_invariants

BUGS = {
    "drop-stream-destroy": "stream-no-leak",
    "drop-event-destroy": "event-no-leak",
    "flip-shared-flag": "host-shared-flag",
    "sync-alloc-stream": "sync-alloc-no-stream",
    "destroy-before-sync": "stream-no-use-after-destroy",
    "drop-synchronize": "async-order",
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_seeded_bug_found_within_300_and_shrunk(bug: str, mutant) -> None:
    real = need_mlir_opt(19)
    path = mutant(bug)
    lowering = MlirOptLowering(f"mlir-opt:{path}", path)
    invariants = [i for i in active_invariants() if i != "differential"]
    report = run_fuzz(FuzzOptions(
        [lowering], invariants, seed=0, max_examples=300, batch_size=25,
        gen=GenConfig(max_ops=10).supported_by(19),
        baseline=MlirOptLowering("mlir-opt-19", real)))
    key = (lowering.spec, BUGS[bug])
    assert key in report.found, sorted(report.found)
    assert report.first_seen[key] <= 300
    assert report.found[key].program.op_count() <= 5, report.found[key].program.to_mlir()
