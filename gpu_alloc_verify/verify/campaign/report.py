"""A campaign's HTML report, made whole (issue 30: `reports` only renders).

`write_report` does the work in stages: the root causes of the results file
(`verify.triage`, judging the violating programs again), a proven lit test
per root cause (`repro.parallel`, made in a staging directory beside the
report), then the pages (`reports.html.render_report`, which links the lit
tests in and swaps the whole directory into place).  An interrupted report
leaves the previous one and nothing else behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gpu_alloc_verify.reports.html import LitResults, check_results, render_report, staging_dir
from gpu_alloc_verify.reports.report_progress import ReportProgress
from gpu_alloc_verify.repro.export import DEFAULT_FIXED
from gpu_alloc_verify.repro.parallel import export_buckets_parallel
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError
from gpu_alloc_verify.verify.model.machine import resolve_jobs
from gpu_alloc_verify.verify.triage import rejudge
from gpu_alloc_verify.verify.triage.buckets import Triage, triage_file

__all__ = ["make_lit", "triage_for_report", "write_report"]


def triage_for_report(results: str | Path, jobs: int | None = None,
                      progress: ReportProgress | None = None
                      ) -> tuple[Triage | None, list[str]]:
    """The root causes of a results file, and the report's notes: the
    campaign's programs are judged again on as many processes as the
    campaign had (`jobs`, default one per core; in-process lowerings).  A
    triage that cannot be made is a note, not an error."""
    try:
        with rejudge.workers(resolve_jobs(jobs)):
            return triage_file(results, progress=progress.note if progress else None), []
    except GpuAllocVerifyError as e:
        return None, [f"triage skipped: {e}"]


def make_lit(triage: Triage, directory: str | Path, fixed: str | None = DEFAULT_FIXED,
             jobs: int | None = None, progress: ReportProgress | None = None) -> LitResults:
    """A proven lit test per root cause, written under `directory` (with
    lit.cfg.py and README.md) on `jobs` processes, `fixed` the lowering
    each must pass on."""
    step = (lambda done, total: progress.step("lit tests", done, total)) if progress else None
    directory = Path(directory)
    return LitResults(directory, export_buckets_parallel(triage.buckets, directory, fixed,
                                                         resolve_jobs(jobs), step))


def write_report(results_path: str | Path, out_dir: str | Path, *,
                 known_features: Sequence[str] | None = None,
                 campaign: str | None = None,
                 lit: bool = True, fixed: str | None = DEFAULT_FIXED,
                 triage: bool = True, jobs: int | None = None,
                 progress: ReportProgress | None = None) -> Path:
    """Write the report pages, triage.json and the lit tests; return index.html's path
    (or, with `campaign`, that campaign's page).

    `triage`: bucket the violations into root causes (judges the violating
    programs again).  `lit`: export a proven lit test per root cause
    (`fixed`: the lowering each must pass on) on `jobs` processes (default:
    one per core).  `known_features`: see `render_report`.  The directory is
    written whole or not at all; `progress` hears each stage."""
    results = check_results(results_path, campaign)  # before any work
    found, notes = triage_for_report(results, jobs, progress) if triage else (None, [])
    if not (lit and found is not None and found.buckets):
        return render_report(results, out_dir, known_features=known_features,
                             campaign=campaign, triage=found, notes=notes, progress=progress)
    with staging_dir(out_dir) as stage:
        made = LitResults(stage / "lit")
        try:
            made = make_lit(found, made.directory, fixed, jobs, progress)
        except GpuAllocVerifyError as e:
            # what was written before the error still goes in, as it always did
            notes.append(f"lit tests not written: {e}")
        return render_report(results, out_dir, known_features=known_features,
                             campaign=campaign, triage=found, lit=made, notes=notes,
                             progress=progress)
