"""`findings`: the catalogue of upstream defects, from campaigns that run this
command line's `fuzz` (`main` is passed in: this module cannot import it)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def cmd_findings(args: argparse.Namespace, main: Callable[[list[str]], int]) -> int:
    from gpu_alloc_verify.verify.findings import (
        Interrupted,
        Run,
        build_findings,
        installed_versions,
    )
    from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO
    from gpu_alloc_verify.verify.model.errors import UsageError
    from gpu_alloc_verify.verify.model.machine import resolve_jobs

    lowerings = list(dict.fromkeys(args.lowering or installed_versions()))
    if not lowerings:
        raise UsageError("no mlir-opt installed: apt-get install mlir-19-tools")
    if args.max_examples is not None and args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    out = Path(args.output)
    results = args.results or out.parent / "findings.jsonl"
    budget = args.time_budget if args.time_budget > 0 else None
    failed: list[Run] = []
    try:
        found = build_findings(main, out, results, lowerings,
                               list(args.pipeline or [PORTFOLIO]), args.max_examples, args.seed,
                               resolve_jobs(args.jobs), args.lit,
                               progress=lambda msg: print(msg, file=sys.stderr),
                               run=not args.reuse_results, time_budget=budget,
                               failed=failed)
    except (Interrupted, KeyboardInterrupt):
        print(f"gpu-alloc-verify: findings interrupted; every finished program is in {results}: "
              f"`gpu-alloc-verify findings --reuse-results --results {results}` writes the "
              "catalogue from them, `gpu-alloc-verify findings` again resumes the interrupted "
              "campaign first", file=sys.stderr)
        return 130
    print(f"findings: {len(found)} written to {out}")
    if failed:
        print(f"gpu-alloc-verify: {len(failed)} campaign(s) failed "
              f"({', '.join(r.lowering for r in failed)}): the catalogue lacks them",
              file=sys.stderr)
        return 2
    return 0
