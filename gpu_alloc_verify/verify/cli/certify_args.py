"""`certify`'s arguments: the bound, the targets, where it writes, the cluster."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    c = parser.add_argument_group("bound and targets")
    c.add_argument("--ops", type=int, default=3, metavar="N",
                   help="check every valid program of up to N GPU ops (default: %(default)s; "
                   "programs per N without --spaces: 1: 11, 2: 221, 3: 7980, 4: 986784)")
    c.add_argument("--lowering", action="append", metavar="SPEC",
                   help="a lowering to certify, repeatable (default: every installed "
                   "mlir-opt-N and xdsl:reference)")
    c.add_argument("--pipeline", action="append", metavar="PIPELINE",
                   help="a pass pipeline for the mlir-opt lowerings, repeatable (default: "
                   "upstream's gpu-to-llvm, and func.func(gpu-async-region) before it)")
    c.add_argument("--spaces", action="store_true",
                   help="also gpu.alloc in memory space 1 (about twice the programs, each "
                   "failing on 19 and 22, so about ten times the time)")
    c = parser.add_argument_group("output")
    c.add_argument("--out", default="out/certificate", metavar="DIR",
                   help="where results.jsonl, certificate.json and certificate.html go; "
                   "rerunning with the same DIR resumes an interrupted run "
                   "(default: %(default)s)")
    c.add_argument("--json", action="store_true",
                   help="print the certificate (schema: verify/schema/certificate.schema.json)")
    c = parser.add_argument_group("cluster")
    c.add_argument("--cluster", metavar="ADDRESS",
                   help="judge the shards on a Dask cluster: local:N (N worker processes "
                   "here) or tcp://HOST:PORT (needs the [cluster] extra)")
