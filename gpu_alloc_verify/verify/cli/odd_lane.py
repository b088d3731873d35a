"""The odd-input lane: `check` on `generators.odd_inputs`, counting what
must never happen (issue 46): a traceback or internal error, a run past
its time limit, a reason carrying a Python exception's name.

    .venv/bin/python -m gpu_alloc_verify.verify.cli.odd_lane [-n 500] [--seed S]
        [--scale F] [--time-limit S] [--lowering SPEC]

Runs the real CLI (`verify.cli.entry.main`) in this process, one input at
a time, its output captured; prints one line per problem and the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gpu_alloc_verify.generators.odd_inputs import OddInput, odd_input
from gpu_alloc_verify.verify.model.budget import BACKSTOP_GRACE_S
from gpu_alloc_verify.verify.model.harness_defects import PYTHON_ERROR_TEXT

# Beyond the limit a run may take: reading the file and starting the tools
# run before the limit is armed, and the backstop fires past it.
SLACK_S = BACKSTOP_GRACE_S + 5.0


@dataclass
class LaneRun:
    family: str
    name: str
    wall: float
    status: int
    problem: str = ""  # empty: none


@dataclass
class LaneReport:
    time_limit: float
    runs: list[LaneRun] = field(default_factory=list)

    def problems(self) -> list[LaneRun]:
        return [r for r in self.runs if r.problem]

    def summary(self) -> str:
        walls = sorted(r.wall for r in self.runs)
        kinds = Counter(r.problem.split(":")[0] for r in self.problems())
        statuses = Counter(r.status for r in self.runs)
        median, top = (walls[len(walls) // 2], walls[-1]) if walls else (0.0, 0.0)
        return (f"{len(self.runs)} inputs ({sum('/' not in r.family for r in self.runs)} valid), "
                f"limit {self.time_limit:g} s: {kinds.get('traceback', 0)} tracebacks, "
                f"{kinds.get('internal error', 0)} internal errors, "
                f"{kinds.get('over the limit', 0)} over the limit, "
                f"{kinds.get('python in a reason', 0)} reasons naming a Python exception; "
                f"exit statuses {dict(sorted(statuses.items()))}; wall "
                f"{sum(walls):.0f} s in all, median {median:.1f} s, max {top:.1f} s")


def run_one(item: OddInput, where: Path, lowering: str, time_limit: float) -> LaneRun:
    """`check` on one input, written under `where` by its (odd) name."""
    from gpu_alloc_verify.verify.cli.entry import main

    where.mkdir(parents=True, exist_ok=True)
    path = where / item.name
    path.write_bytes(item.data)
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["check", str(path), "--lowering", lowering, "--json",
                           "--time-limit", f"{time_limit:g}"])
        except SystemExit as e:  # a usage error
            status = e.code if isinstance(e.code, int) else 2
    wall = time.monotonic() - start
    run = LaneRun(item.family, item.name, wall, status)
    said = err.getvalue()
    if "Traceback" in said:
        run.problem = f"traceback: {said[-300:]}"
    elif "internal error" in said:
        run.problem = f"internal error: {said.strip().splitlines()[-1]}"
    elif time_limit and wall > time_limit + SLACK_S:
        run.problem = f"over the limit: {wall:.1f} s"
    elif status not in (0, 1, 2, 3):
        run.problem = f"exit status {status}"
    elif (m := PYTHON_ERROR_TEXT.search(out.getvalue())) is not None:
        run.problem = f"python in a reason: {m.group(0)}"
    return run


def run_lane(count: int, seed: int = 0, scale: float = 0.01, time_limit: float = 10.0,
             lowering: str = "mlir-opt-19", progress: bool = False) -> LaneReport:
    rng = random.Random(seed)
    report = LaneReport(time_limit)
    with tempfile.TemporaryDirectory(prefix="gpu-alloc-verify-odd-") as tmp:
        for k in range(count):
            run = run_one(odd_input(rng, scale), Path(tmp) / str(k), lowering, time_limit)
            report.runs.append(run)
            if progress and run.problem:
                print(f"{k}: {run.family} {run.name!r}: {run.problem}", file=sys.stderr,
                      flush=True)
            if progress and (k + 1) % 25 == 0:
                print(f"{k + 1}/{count}: {report.summary()}", file=sys.stderr, flush=True)
    return report


def main() -> int:
    from gpu_alloc_verify.verify.cli.odd_lane_args import add_arguments

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    args = ap.parse_args()
    report = run_lane(args.n, args.seed, args.scale, args.time_limit, args.lowering, True)
    print(report.summary())
    return 1 if report.problems() else 0


if __name__ == "__main__":
    raise SystemExit(main())
