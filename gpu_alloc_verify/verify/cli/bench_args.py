"""`bench`'s arguments: the lowering under test, the measurement, output."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import LOWERING, OUTPUT, jobs
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE


def add_arguments(bn: argparse.ArgumentParser) -> None:
    low = bn.add_argument_group(LOWERING)
    low.add_argument("--lowering", action="append", metavar="SPEC",
                     help="repeatable (default: newest mlir-opt found, else xdsl:pr69969)")
    low.add_argument("--pipeline", default=DEFAULT_PIPELINE, metavar="P",
                     help="pass pipeline for mlir-opt lowerings")
    size = bn.add_argument_group("measurement")
    size.add_argument("--programs", type=int, default=200, metavar="N",
                      help="programs per size")
    size.add_argument("-j", "--jobs", type=jobs, default=0, metavar="N",
                      help="worker processes, 0 for one per core")
    size.add_argument("--repeat", type=int, default=3, metavar="N",
                      help="alternating lowering-only and end-to-end runs; medians are "
                      "reported")
    bn.add_argument_group(OUTPUT).add_argument(
        "--json", action="store_true", help="print one JSON object on stdout")
