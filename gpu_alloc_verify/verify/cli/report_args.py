"""`report`'s arguments: the results file, where the report goes."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import OUTPUT


def add_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("results", metavar="RESULTS.jsonl")
    rep.add_argument_group(OUTPUT).add_argument(
        "-o", "--output", metavar="DIR",
        help="directory to write index.html into (default: RESULTS-report "
        "beside the results file, e.g. runs/c1.jsonl -> runs/c1-report)")
