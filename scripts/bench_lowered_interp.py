"""What the lowered interpreter costs: reading lowered modules with the fast
reader vs xDSL's parser, and the share of `differential.check` spent in
lowered runs (issue 39, item 5: why the fast reader's path stays).

    .venv/bin/python scripts/bench_lowered_interp.py [--programs N] [--lowering SPEC]

Programs are bench's seeded ones (`verify.campaign.bench.seeded_programs`),
N per size, lowered once; CPU seconds are reported.
"""

from __future__ import annotations

import argparse
import time

from gpu_alloc_verify.oracles import differential
from gpu_alloc_verify.oracles.lowered_interp import parse_module, read_fast
from gpu_alloc_verify.verify.api import lowering
from gpu_alloc_verify.verify.campaign.bench import SIZES, seeded_programs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=50, help="programs per size")
    ap.add_argument("--lowering", default="mlir-opt-19")
    args = ap.parse_args()
    programs = [p for size in SIZES for p in seeded_programs(size, args.programs)]
    outcomes = lowering(args.lowering).lower_batch(programs)
    pairs = [(p, o.lowered) for p, o in zip(programs, outcomes, strict=True)
             if o.status == "ok"]

    start = time.process_time()
    for _, text in pairs:
        read_fast(text)
    fast = time.process_time() - start
    start = time.process_time()
    for _, text in pairs:
        parse_module(text)
    xdsl = time.process_time() - start
    print(f"{len(pairs)} lowered modules: fast reader {fast:.2f} s, xDSL's parse "
          f"{xdsl:.2f} s ({xdsl / max(fast, 1e-9):.0f}x)")

    spent, runs = 0.0, 0
    run_function = differential.run_function

    def timed(*a, **k):  # type: ignore[no-untyped-def]
        nonlocal spent, runs
        t0 = time.process_time()
        try:
            return run_function(*a, **k)
        finally:
            spent += time.process_time() - t0
            runs += 1

    differential.run_function = timed  # type: ignore[assignment]
    start = time.process_time()
    for program, text in pairs:
        differential.check(program, text, differential.simulated("cuda"))
    total = time.process_time() - start
    print(f"differential.check: {total:.2f} s; {runs} lowered runs {spent:.2f} s "
          f"({100 * spent / max(total, 1e-9):.0f}%, {1e3 * spent / max(runs, 1):.2f} ms each)")


if __name__ == "__main__":
    main()
