"""Time the README's first command, campaign and report apart.

    .venv/bin/python scripts/time_first_command.py [--runs 3] [--out DIR]

Runs `fuzz --lowering xdsl:pr69969 --max-examples 200 --report DIR` in this
process (a fresh seed each run, as the README's command draws), timing the
campaign (`run_fuzz`, shrinking included) and the report (triage, lit tests,
pages) by wall clock around each, and counting the lines printed on stdout.
Prints one JSON line per run, then the medians.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def _one(out_dir: str) -> dict[str, Any]:
    import gpu_alloc_verify.verify.campaign.fuzz as fuzz
    import gpu_alloc_verify.verify.cli as cli
    import gpu_alloc_verify.verify.cli.report as cli_report

    spent: dict[str, float] = {}

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.monotonic()
            try:
                return f(*args, **kwargs)
            finally:
                spent[name] = time.monotonic() - start
        return run

    real = fuzz.run_fuzz, cli_report.render_report
    fuzz.run_fuzz = timed("campaign", fuzz.run_fuzz)  # cmd_fuzz imports it when run
    cli_report.render_report = timed("report", cli_report.render_report)  # looked up so too
    shutil.rmtree(out_dir, ignore_errors=True)
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            rc = cli.main(["fuzz", "--lowering", "xdsl:pr69969", "--max-examples", "200",
                           "--report", out_dir])
    finally:
        fuzz.run_fuzz, cli_report.render_report = real
    lines = text.getvalue().splitlines()
    return {"rc": rc, "stdout_lines": len(lines), "campaign_s": round(spent["campaign"], 2),
            "report_s": round(spent["report"], 2),
            "ratio": round(spent["report"] / spent["campaign"], 2),
            "load": round(os.getloadavg()[0], 1), "first": lines[0] if lines else ""}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default="out/time-first-command/report")
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        runs.append(_one(args.out))
        print(json.dumps(runs[-1]), file=sys.stderr)
    print(json.dumps({k: statistics.median(r[k] for r in runs)
                      for k in ("stdout_lines", "campaign_s", "report_s", "ratio")}))
    print(f"max stdout lines: {max(r['stdout_lines'] for r in runs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
