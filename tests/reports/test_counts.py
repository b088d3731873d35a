"""One way of counting (issue 44, item 2): programs, verdicts, root causes,
with --baseline split into what the lowering adds and what the baseline
shows too; summary lines are wrapped, never cut."""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.reports.counts import added_by_lowering, run_counts
from gpu_alloc_verify.verify.campaign.summary_text import unknown_lines, wrap
from gpu_alloc_verify.verify.model.baseline import BaselineTally, base_violated, worse

BUGGY, BASE = "mlir-opt:bug", "mlir-opt-19"


def _record(verdicts: dict[str, str], base: dict[str, str]) -> dict[str, Any]:
    return {"kind": "program", "results": {BUGGY: {"verdicts": verdicts}},
            "baseline": {"lowering": BASE, "verdicts": base}}


def test_worse_ranks_violated_over_unknown_over_the_rest() -> None:
    assert worse("violated", "holds") and worse("violated", "unknown")
    assert worse("unknown", "not-applicable") and worse("unknown", None)
    assert not worse("violated", "violated") and not worse("unknown", "violated")
    assert not worse("holds", None)


def test_a_verdict_the_baseline_shares_is_counted_apart() -> None:
    tally = BaselineTally(BASE)
    tally.add(_record({"stream-no-leak": "violated", "lowering-complete": "violated",
                       "runtime-contract": "unknown"},
                      {"stream-no-leak": "holds", "lowering-complete": "violated",
                       "runtime-contract": "unknown"}))
    tally.add({"kind": "program", "results": {}})  # no baseline entry: not counted
    assert tally.programs == 1
    assert tally.added == {BUGGY: {"stream-no-leak": {"violated": 1}}}
    assert tally.shared == {BUGGY: {"lowering-complete": {"violated": 1},
                                    "runtime-contract": {"unknown": 1}}}
    assert base_violated(_record({}, {"lowering-complete": "violated"})) == {"lowering-complete"}


def test_counts_say_what_is_added_and_the_baseline_apart() -> None:
    tally = BaselineTally(BASE)
    tally.add(_record({"stream-no-leak": "violated", "lowering-complete": "violated"},
                      {"stream-no-leak": "holds", "lowering-complete": "violated"}))
    summary = {"examples": 1, "by_lowering": {BUGGY: {
        "stream-no-leak": {"holds": 0, "violated": 1, "unknown": 0},
        "lowering-complete": {"holds": 0, "violated": 1, "unknown": 0}}},
        "baseline": tally.to_json()}
    table = added_by_lowering(summary)
    assert table[BUGGY]["lowering-complete"]["violated"] == 0
    counts = run_counts(summary)
    assert counts.verdicts["violated"] == 1 and counts.shared == {"violated": 1, "unknown": 0}
    assert counts.root_causes is None  # violated, not triaged
    assert counts.to_json()["baseline"] == {"lowering": BASE,
                                           "shared": {"violated": 1, "unknown": 0}}
    plain = run_counts({"examples": 2, "by_lowering": {}})
    assert plain.root_causes == 0 and "baseline" not in plain.to_json()


def test_summary_lines_are_wrapped_never_cut() -> None:
    word = "mgpuEventSynchronize(from-opN)-given-something-else" * 2
    lines = wrap(f"UNKNOWN: a reason with {word} in it", 40, 4)
    assert " ".join(ln.strip() for ln in lines) == f"UNKNOWN: a reason with {word} in it"
    assert "    " + word in lines  # a word longer than the line keeps its own line, whole
    same = "a handle destroyed by mgpuEventDestroy from opN may be used afterwards"
    entries = [{"lowering": BUGGY, "invariant": "stream-no-use-after-destroy",
                "reason": f"{same} (by {tail})", "count": 1}
               for tail in ("mgpuEventSynchronize", "gpu.memset")]
    text = "\n".join(unknown_lines(entries, 60, False))
    assert "\u2026" not in text and "mgpuEventSynchronize" in text and "gpu.memset" in text
