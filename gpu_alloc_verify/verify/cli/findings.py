"""`findings`: the catalogue of upstream defects, from campaigns that run this
command line's `fuzz` options (`campaign`: without fuzz's summary, whose
triage would be done again for the whole file)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def cmd_findings(args: argparse.Namespace, main: Callable[[list[str]], int]) -> int:
    """`main` (the command line) is kept for the callers' sake: the campaigns
    run through `campaign`, the same options without fuzz's summary."""
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
        found = build_findings(campaign, out, results, lowerings,
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


def campaign(argv: list[str]) -> int:
    """`gpu-alloc-verify fuzz ARGV` without its summary: the campaign's exit
    status (1 with violations, 0 without, 2 on an error, said on stderr; 130
    when interrupted, every finished program kept in its results file)."""
    from gpu_alloc_verify.verify.campaign.fuzz import run_fuzz
    from gpu_alloc_verify.verify.campaign.progress import ProgressPrinter
    from gpu_alloc_verify.verify.cli.fuzz import new_options, resumed_options
    from gpu_alloc_verify.verify.cli.parser import build_parser
    from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError

    args = build_parser().parse_args(argv)
    args.runtime = args.runtime or "cuda"  # no ROCDL pipeline here
    printer = ProgressPrinter()
    try:
        opts = (resumed_options(args, args.results) if args.resume
                else new_options(args, args.results))
        opts.progress = printer
        report = run_fuzz(opts)
    except KeyboardInterrupt:
        return 130
    except GpuAllocVerifyError as e:
        print(f"gpu-alloc-verify: {e}", file=sys.stderr)
        return 2
    finally:
        printer.done()
    return 1 if report.found or report.first_seen else 0
