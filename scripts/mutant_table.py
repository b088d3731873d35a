#!/usr/bin/env python3
"""Examples-to-detection and shrunk size for each seeded bug (issue 4).

Each bug is a wrapper around real mlir-opt-19 that breaks one thing
(tests/fixtures/mutating_mlir_opt.py).  Run: .venv/bin/python scripts/mutant_table.py
"""

from __future__ import annotations

import argparse
import stat
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from gpu_alloc_verify.generators.programs import GenConfig  # noqa: E402
from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz  # noqa: E402
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering, find_mlir_opt  # noqa: E402

BUGS = {
    "drop-stream-destroy": "stream-no-leak",
    "drop-event-destroy": "event-no-leak",
    "flip-shared-flag": "host-shared-flag",
    "sync-alloc-stream": "sync-alloc-no-stream",
    "destroy-before-sync": "stream-no-use-after-destroy",
    "drop-synchronize": "async-order",
}


def wrapper(tmp: Path, mode: str, real: str) -> str:
    script = tmp / f"mlir-opt-{mode}"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" '
                      f'"{ROOT / "tests/fixtures/mutating_mlir_opt.py"}" {mode} "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def hunt(mode: str, invariant: str, real: str, tmp: Path, examples: int,
         seed: int) -> dict[str, object]:
    path = wrapper(tmp, mode, real)
    lowering = MlirOptLowering(f"mlir-opt:{path}", path)
    baseline = MlirOptLowering("mlir-opt-19", real)
    start = time.monotonic()
    # Regression mode: only what the bug adds over real mlir-opt-19 counts.
    # Every active invariant, judged as a campaign judges (FuzzOptions.check's default).
    report = run_fuzz(FuzzOptions([lowering], seed=seed,
                                  max_examples=examples,
                                  gen=GenConfig(max_ops=10).supported_by(19),
                                  batch_size=25, baseline=baseline))
    found = report.found.get((lowering.spec, invariant))
    return {
        "bug": mode, "invariant": invariant, "found": found is not None,
        "examples_to_detection": report.first_seen.get((lowering.spec, invariant)),
        "shrunk_ops": found.program.op_count() if found else None,
        "seconds": round(time.monotonic() - start, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--examples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    real = find_mlir_opt(19)
    if real is None:
        print("needs mlir-opt-19: apt-get install mlir-19-tools", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        rows = [hunt(m, inv, real, Path(d), args.examples, args.seed) for m, inv in BUGS.items()]
    print("| bug | invariant | found | examples to detection | shrunk ops | s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['bug']} | {r['invariant']} | {r['found']} | {r['examples_to_detection']} "
              f"| {r['shrunk_ops']} | {r['seconds']} |")
    return 0 if all(r["found"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
