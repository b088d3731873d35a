"""`check`'s arguments: the files, the lowering under test, what to check, output."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import checks_group, lowering_group, output_group

# `check --time-limit`'s default: every file ends in bounded time (issue 46).
DEFAULT_TIME_LIMIT_S = 50.0


def add_arguments(ck: argparse.ArgumentParser) -> None:
    # dest "files": cmd_check keeps judging one args.file, which check_files sets.
    ck.add_argument("files", nargs="+", metavar="FILE.mlir",
                    help="files to check, each on its own, in order; a directory: every "
                    ".mlir file under it, sorted, as lit finds tests; - reads standard input "
                    "(named <stdin>); exit status: the worst of the files' (2 error > 1 "
                    "violation > 3 unknown or nothing checked > 0)")
    lowering_group(ck).add_argument(
        "--baseline", metavar="SPEC",
        help="regression mode: judge each file on this lowering too (e.g. the released "
        "mlir-opt-19); the verdicts, diagnostics and exit status count what the lowering "
        "under test adds over it, its own are one line apart (default: none)")
    checks_group(ck).add_argument(
        "--time-limit", metavar="S", type=float, default=DEFAULT_TIME_LIMIT_S,
        help="seconds each file may take, all lowerings together; a verdict still open when "
        "they run out is unknown, its reason naming this limit (0: no limit; default: "
        f"{DEFAULT_TIME_LIMIT_S:g})")
    out = output_group(ck)
    out.add_argument(
        "--results", metavar="FILE",
        help="also append each file's verdicts to FILE as a one-program campaign, in the "
        "records fuzz writes, so `triage FILE` puts it under the same root causes as a "
        "campaign's programs (default: none)")
    out.add_argument(
        "--lit", metavar="DIR",
        help="write an upstream-style lit test per violation into DIR (reduced, and proven "
        "to fail on the lowering under test and pass on xdsl:reference), with its "
        "lit.cfg.py: run them with `lit -v DIR` (default: none)")
