#!/usr/bin/env python3
"""Differential checks on a real CUDA GPU: run on a GPU machine; installs nothing.

1. Runs the CuPy tests (tests/oracles/test_cupy.py).
2. Fidelity: the source semantics of generated programs on CuPy (real CUDA)
   and on the simulated runtime must give the same normalized outcome.
3. Differential campaign: each program lowered by each lowering, the lowered
   code run on CuPy and on the simulator, compared with the source semantics.

Prints a short table; exit status 0 when the GPU and the simulator agree and
the tests pass, 1 otherwise, 2 when CuPy or a GPU is missing.

    python scripts/gpu_differential.py [--programs 60] [--seed 0]
        [--lowering mlir-opt-19 --lowering xdsl:pr69969] [--skip-tests]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def default_lowerings() -> list[str]:
    from verify.lowerings.mlir_opt import find_mlir_opt

    specs = [f"mlir-opt-{v}" for v in (19, 22) if find_mlir_opt(v)]
    return specs or ["xdsl:pr69969", "xdsl:split-api"]


def run_tests() -> int:
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", str(ROOT / "tests/oracles/test_cupy.py")]
    print("$", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT)


def fidelity(programs: list, seed: int) -> tuple[int, int, list[str]]:
    """(agree, differ, first differing programs) of source outcomes, GPU vs simulator."""
    from oracles.cupy_runtime import CupyRuntime
    from oracles.differential import default_assignments, normalize
    from oracles.simulated import SimulatedRuntime
    from oracles.source_interp import run_function

    agree = differ = 0
    examples: list[str] = []
    for program in programs:
        fn = program.functions[0]
        for args in default_assignments(fn)[:2]:
            gpu = CupyRuntime()
            try:
                real = run_function(fn, args, gpu)
            finally:
                gpu.close()
            sim = run_function(fn, args, SimulatedRuntime("cuda", seed))
            if real.outcome is None or sim.outcome is None:
                continue
            if normalize(real.outcome) == normalize(sim.outcome):
                agree += 1
            else:
                differ += 1
                if len(examples) < 3:
                    examples.append(program.to_mlir())
    return agree, differ, examples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--schedules", type=int, default=2)
    parser.add_argument("--lowering", action="append", default=None)
    parser.add_argument("--skip-tests", action="store_true")
    args = parser.parse_args(argv)

    from oracles.cupy_runtime import CupyRuntime, cupy_available

    if not cupy_available():
        print("CuPy or a CUDA GPU is missing: nothing to do here (pip install cupy-cuda12x)")
        return 2

    from oracles.campaign import run_campaign, sample_programs
    from oracles.differential import simulated
    from verify.errors import EnvironmentProblem
    from verify.lowerings.registry import resolve

    status = 0
    if not args.skip_tests and run_tests() != 0:
        status = 1

    start = time.time()
    programs = sample_programs(args.programs, seed=args.seed)
    agree, differ, examples = fidelity(programs, args.seed)
    print(f"\nsource semantics, CuPy vs simulator: {agree} agree, {differ} differ "
          f"({time.time() - start:.1f}s)")
    for text in examples:
        print(text)
    if differ:
        status = 1

    factories = {"cupy": lambda seed: CupyRuntime(), "sim-cuda": simulated("cuda")}
    header = f"{'lowering':<18} {'runtime':<9} {'holds':>6} {'violated':>9} {'n/a':>5} " \
             f"{'unknown':>8} {'other':>6}"
    print("\n" + header + "\n" + "-" * len(header))
    for spec in args.lowering or default_lowerings():
        try:
            lowering = resolve(spec)
        except EnvironmentProblem as e:
            print(f"{spec:<18} skipped: {e}")
            continue
        start = time.time()
        rows = run_campaign(programs, lowering, factories, schedules=args.schedules)
        verdicts = {row.runtime: row.verdicts for row in rows}
        for row in rows:
            v = row.verdicts
            other = sum(n for k, n in v.items()
                        if k not in ("holds", "violated", "not-applicable", "unknown"))
            print(f"{spec:<18} {row.runtime:<9} {v['holds']:>6} {v['violated']:>9} "
                  f"{v['not-applicable']:>5} {v['unknown']:>8} {other:>6}")
        if verdicts["cupy"] != verdicts["sim-cuda"]:
            print(f"  ! the GPU and the simulator disagree on {spec}")
            status = 1
        print(f"  ({time.time() - start:.1f}s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
