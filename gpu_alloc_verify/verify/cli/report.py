"""`report`: the HTML report of a results file (also what `fuzz --report` writes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_report(args: argparse.Namespace) -> int:
    output = args.output or str(default_report_dir(args.results))
    render_report(args.results, output)
    print(f"report: {output}/index.html")
    return 0


def default_report_dir(results: str) -> Path:
    """`report` without -o: RESULTS-report beside the results file, so two
    results files in one directory never share (and overwrite) a report."""
    path = Path(results)
    return path.with_name(f"{path.stem}-report")


def render_report(results: str | None, out_dir: str) -> None:
    if results is None:
        return
    try:
        from gpu_alloc_verify.verify.campaign.report import write_report
    except ImportError as e:
        print(f"HTML report skipped: {e}", file=sys.stderr)
        return
    from gpu_alloc_verify.reports.report_progress import ReportProgress

    progress = ReportProgress()  # triage and lit proofs take a while: say so
    write_report(results, out_dir, progress=progress)
    progress.done()
