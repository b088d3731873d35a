"""`triage`'s arguments: the results file, output, the lit tests it may write."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import OUTPUT


def add_arguments(tr: argparse.ArgumentParser) -> None:
    tr.add_argument("results", metavar="RESULTS.jsonl")
    tr.add_argument_group(OUTPUT).add_argument(
        "--json", action="store_true", help="print one JSON object on stdout "
        "(schema: verify/schema/triage.schema.json)")
    lit = tr.add_argument_group("lit tests")
    lit.add_argument("--lit", metavar="DIR", help="also write a proven lit test per root cause "
                     "and lit.cfg.py into DIR (run: lit -v DIR) (default: none)")
    lit.add_argument("--fixed", metavar="SPEC", default="xdsl:reference",
                     help="the fixed lowering each lit test must pass on (default: %(default)s; "
                     "'none' for no such check)")
