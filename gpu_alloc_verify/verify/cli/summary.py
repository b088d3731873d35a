"""The text summary of a judging command: `fuzz`'s one screen, and the
unknown verdicts and oracle coverage that `check` prints the same way."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError
from gpu_alloc_verify.verify.model.verdicts import Verdict


def print_summary(summary: dict[str, Any], elapsed: float | None = None,
                  results: str | None = None, verbose: bool = False,
                  drawn: int | None = None, max_examples: int | None = None,
                  triage: Any = None) -> None:
    """One screen: verdict table (with --baseline, what the lowering adds, and
    the baseline's own on one line apart), root causes, shrunk programs,
    unknowns grouped, the verdict line last; `verbose` adds every shrunk
    program and every unknown reason in full.  `triage`: the root causes of
    `results`, already computed (`summary_triage`)."""
    from gpu_alloc_verify.reports.console import columns
    from gpu_alloc_verify.reports.counts import run_counts
    from gpu_alloc_verify.verify.campaign import summary_text as st

    width = columns(sys.stdout)
    counts = run_counts(summary, triage)
    sections = [
        [st.headline(summary, elapsed, drawn, max_examples)],
        st.table_lines(summary) + st.baseline_lines(counts, width),
        st.root_cause_lines(triage, results, width, summary.get("analysis_defects") or [],
                            counts.baseline),
        st.counterexample_lines(summary["violations"], results, width),
        # With --baseline, unknowns all the baseline's are on its line already.
        [] if verbose or (counts.baseline and not counts.verdicts.get(Verdict.UNKNOWN))
        else st.unknown_lines(summary.get("unknown") or [], width,
                              len(summary["lowerings"]) > 1)
        + st.coverage_line(summary.get("oracle_coverage") or [], width),
    ]
    print("\n\n".join("\n".join(lines) for lines in sections if lines))
    if verbose:
        for v in summary["violations"]:
            repro = f"gpu-alloc-verify replay {results} --id {v['id']}" if results else None
            print("\n" + render(v, repro=repro), end="")
        print_unknown(summary.get("unknown") or [])
        _print_oracle_coverage(summary.get("oracle_coverage") or [])
    print(f"\n{st.verdict_line(counts)}")


def summary_triage(summary: dict[str, Any], results: str | None) -> Any:
    """The root causes of the results file when the run violated something
    (None, said once, when triage fails)."""
    from gpu_alloc_verify.verify.triage.buckets import triage_file

    if not results or not summary["violations"] or not Path(results).is_file():
        return None
    try:
        return triage_file(results)  # cached per file: the report reuses it
    except GpuAllocVerifyError as e:
        print(f"(triage skipped: {e})")
        return None


def _print_oracle_coverage(entries: Sequence[dict[str, Any]]) -> None:
    """How much a testing oracle's "holds" covered, per lowering."""
    if entries:
        print("\nCOVERAGE of testing-oracle holds (exhaustive, or sampled k of n):")
    for e in entries:
        print(f"  {e['invariant']} on {e['lowering']}: holds ({e['coverage']}) "
              f"on {e['count']} program(s)")


def print_unknown(entries: Sequence[dict[str, Any]]) -> None:
    if not entries:
        return
    print("\nUNKNOWN (not proven either way, never counted as holds):")
    for u in entries:
        times = f" ({u['count']} program(s))" if u.get("count") else ""
        reason = str(u.get("reason") or "solver gave up").splitlines()[0]  # in full
        print(f"  {u['invariant']} on {u['lowering']}: {reason}{times}")
