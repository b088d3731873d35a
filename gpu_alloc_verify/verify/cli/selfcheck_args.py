"""`selfcheck`'s arguments: the lowerings mutated, the mutants, output."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import LOWERING, OUTPUT


def add_arguments(sc: argparse.ArgumentParser) -> None:
    # Its own dest: the config's lowerings (apply_config) are not this default.
    sc.add_argument_group(LOWERING).add_argument(
        "--lowering", action="append", metavar="SPEC", dest="selfcheck_lowering",
        help="repeatable (default: mlir-opt-19, mlir-opt-22, xdsl:split-api)")
    mutants = sc.add_argument_group("mutants")
    mutants.add_argument("--mutants", type=int, default=200, metavar="N",
                         help="valid mutants to judge (default: %(default)s)")
    mutants.add_argument("--seed", type=int, default=0, metavar="S",
                         help="seed of the mutants drawn (fixed: a CI gate)")
    out = sc.add_argument_group(OUTPUT)
    out.add_argument("--out", metavar="DIR", help="save each disagreeing mutant here "
                     "(default: none)")
    out.add_argument("--json", action="store_true", help="print one JSON object on stdout")
