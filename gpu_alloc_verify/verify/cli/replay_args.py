"""`replay`'s arguments: the results file, which violations, output."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import OUTPUT, allow_unknown


def add_arguments(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("results", metavar="RESULTS.jsonl")
    rp.add_argument_group("which violations").add_argument(
        "--id", help="only the violation record with this id, its counterexample "
        "printed (default: every violation record)")
    out = rp.add_argument_group(OUTPUT)
    out.add_argument("--json", action="store_true", help="print a JSON list on stdout")
    allow_unknown(out)
