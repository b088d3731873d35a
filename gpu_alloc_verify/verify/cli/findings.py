"""`findings`: the catalogue of upstream defects, from campaigns that run this
command line's `fuzz` (`main` is passed in: this module cannot import it)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def cmd_findings(args: argparse.Namespace, main: Callable[[list[str]], int]) -> int:
    from gpu_alloc_verify.verify.findings import PIPELINES, build_findings, installed_versions
    from gpu_alloc_verify.verify.model.errors import UsageError
    from gpu_alloc_verify.verify.model.machine import resolve_jobs

    lowerings = list(dict.fromkeys(args.lowering or installed_versions()))
    if not lowerings:
        raise UsageError("no mlir-opt installed: apt-get install mlir-19-tools")
    out = Path(args.output)
    found = build_findings(main, out, args.results or out.parent / "findings.jsonl", lowerings,
                           list(args.pipeline or PIPELINES), args.max_examples, args.seed,
                           resolve_jobs(args.jobs), args.lit,
                           progress=lambda msg: print(msg, file=sys.stderr),
                           run=not args.reuse_results)
    print(f"findings: {len(found)} written to {out}")
    return 0
