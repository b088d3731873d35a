"""Programs per second of a certificate beside the bare lowering's, in one run.

    .venv/bin/python scripts/certify_throughput.py --ops 3 --lowering mlir-opt-19

For the bound's canonical programs on one lowering (its default pipeline),
times (1) the bare lowering: `mlir-opt` in batches of 200, nothing judged,
and (2) the certificate's own work: the same batches lowered and judged
(`verify.certify.judge.judge_shard`), interleaved round by round so both
see the same machine; prints the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.judge import Shard, Target, judge_shard
from gpu_alloc_verify.verify.certify.run import SHARD_SIZE
from gpu_alloc_verify.verify.certify.to_program import to_program
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.registry import resolve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=3)
    ap.add_argument("--lowering", default="mlir-opt-19")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--programs", type=int, default=1000, help="programs per round")
    args = ap.parse_args()
    enum = enumerate_bound(args.ops)
    n = min(args.programs, len(enum.programs))
    pipeline = "" if args.lowering.startswith("xdsl:") else DEFAULT_PIPELINE
    lowering = resolve(args.lowering, pipeline or DEFAULT_PIPELINE)
    bare, cert = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for start in range(0, n, SHARD_SIZE):
            lowering.lower_batch([to_program(enum.programs[i])
                                  for i in range(start, min(start + SHARD_SIZE, n))])
        bare.append(n / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        for start in range(0, n, SHARD_SIZE):
            judge_shard(Shard(Target(args.lowering, pipeline), start,
                              min(start + SHARD_SIZE, n), args.ops, False))
        cert.append(n / (time.perf_counter() - t0))
    b, c = statistics.median(bare), statistics.median(cert)
    print(f"{args.lowering}, {n} of the {len(enum.programs)} programs of --ops {args.ops}, "
          f"{args.rounds} rounds: bare lowering {b:.0f} programs/s, certificate {c:.0f} "
          f"programs/s (ratio {c / b:.2f})")


if __name__ == "__main__":
    main()
