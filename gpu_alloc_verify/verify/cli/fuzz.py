"""`fuzz`: a campaign of generated programs (new, or resumed from its
results file), on this machine or a cluster, then its summary."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.counts import run_counts
from gpu_alloc_verify.verify.cli.options import (
    check_options,
    lowerings,
    resolve_lowering,
    selected_invariants,
)
from gpu_alloc_verify.verify.cli.status import SCHEMA_VERSION, exit_status
from gpu_alloc_verify.verify.cli.summary import print_summary, summary_triage
from gpu_alloc_verify.verify.invariants.options import campaign_truth
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.verdicts import Verdict


def cmd_fuzz(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.campaign.fuzz import run_fuzz
    from gpu_alloc_verify.verify.campaign.progress import ProgressPrinter
    from gpu_alloc_verify.verify.cli import report as report_command

    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    results = args.results
    if args.report and not results:
        results = str(Path(args.report) / "results.jsonl")
    opts = resumed_options(args, results) if args.resume else new_options(args, results)
    printer = ProgressPrinter()
    opts.progress = printer
    from gpu_alloc_verify.verify.campaign.cluster_options import cluster_options, cluster_requested

    on_cluster = cluster_requested(args, opts)
    if args.seed is None and not args.resume:  # drawn: said once the options are valid
        print(f"seed: {opts.seed} (rerun with --seed {opts.seed})", file=sys.stderr)
    try:
        report: Any
        if on_cluster:
            from gpu_alloc_verify.verify.campaign.cluster import run_cluster

            report = run_cluster(opts, cluster_options(args, opts))
        else:
            report = run_fuzz(opts)
    except KeyboardInterrupt:
        printer.done()
        if results:
            from gpu_alloc_verify.verify.cli.fuzz_resume import resume_hint

            print(f"gpu-alloc-verify: interrupted; every finished program is in {results}; "
                  f"continue with: {resume_hint(results, args)}", file=sys.stderr)
            return 130
        raise
    printer.done()
    summary = fuzz_summary(report.summary(), opts, results)
    triage = summary_triage(summary, results)
    counts = run_counts(summary, triage)
    summary["counts"] = counts.to_json()
    if args.report:
        report_command.render_report(results, args.report)
    if args.junitxml:
        from gpu_alloc_verify.reports.junit import write_junit

        write_junit(args.junitxml, summary, "gpu-alloc-verify fuzz", report.elapsed)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary, report.elapsed, results, verbose=args.verbose,
                      drawn=getattr(report, "generated", None), max_examples=args.max_examples,
                      triage=triage)
        if report.stopped_by == "time-budget":
            print(f"\n(time budget of {args.time_budget:g}s spent: generation stopped after "
                  f"{report.tally.examples} programs)")
        if args.report:
            print(f"report: {args.report}/index.html")
    # With --baseline, found and the counts hold only what the lowering adds.
    unknown = counts.verdicts.get(Verdict.UNKNOWN, 0)
    return exit_status(bool(report.found or report.first_seen), unknown, args.allow_unknown)


def fuzz_summary(summary: dict[str, Any], opts: Any, results: str | None) -> dict[str, Any]:
    """The campaign summary with schema_version, seed and an id per violation:
    the id of its violation record in the results file (what `replay --id`
    takes), else the one that record would get (campaign id, -v, index)."""
    campaign = summary.get("campaign") or ""
    recorded: dict[tuple[Any, Any], Any] = {}
    if results and Path(results).exists():
        from gpu_alloc_verify.verify.model.results import read_records

        for rec in read_records(results):
            if rec.get("kind") == "violation" and rec.get("campaign") == campaign:
                recorded.setdefault((rec.get("lowering"), rec.get("invariant")), rec.get("id"))
    for k, v in enumerate(summary["violations"]):
        v["id"] = recorded.get((v["lowering"], v["invariant"])) or f"{campaign}-v{k}"
    return {"schema_version": SCHEMA_VERSION, "command": "fuzz", "seed": opts.seed, **summary}


def _nightly() -> bool:
    return os.environ.get("HYPOTHESIS_PROFILE", "") == "nightly"


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def new_options(args: argparse.Namespace, results: str | None) -> Any:
    """The options of a new campaign, from the command line."""
    from gpu_alloc_verify.generators.programs import campaign_config
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions
    from gpu_alloc_verify.verify.cli.fuzz_resume import recorded_options
    from gpu_alloc_verify.verify.model.machine import resolve_jobs

    # Swarm by default (issue 40): the flags force their switch on.
    gen = campaign_config(args.max_ops, swarm=not args.no_swarm, cf_tokens=args.cf_tokens,
                          alloc_spaces=args.alloc_spaces)
    if args.linear_tokens:
        gen = gen.linear()
    if args.supported is not None:
        gen = gen.supported_by(args.supported)
    seed, db = args.seed, args.db
    if seed is None:
        # A fresh seed per run explores new programs each time, as Hypothesis
        # does; CI stays derandomized (Hypothesis's ci profile) so a PR's check
        # does not fail on a program the previous run never drew.
        seed = 0 if _ci() and not _nightly() else random.randrange(2**31)
    if db is None and _nightly():
        db = os.environ.get("GPU_ALLOC_VERIFY_DB", ".hypothesis/nightly")
    check = check_options(selected_invariants(args.invariant), args.runtime,
                          args.solver_timeout, campaign_truth(args.crosscheck_share))
    chosen = portfolio_lowerings(args)
    if all(lowering.external_tool() is None for lowering in chosen):
        # In-process lowerings take the in-process model only: host code
        # read from text would be not-applicable on each of them.
        gen = gen.in_process()
    return FuzzOptions(
        check=check, lowerings=chosen,
        max_examples=args.max_examples, time_budget=args.time_budget, seed=seed,
        db=db, pipeline=args.pipeline, gen=gen,
        shrink=not args.no_shrink, results=results, batch_size=args.batch_size,
        jobs=resolve_jobs(args.jobs),
        baseline=resolve_lowering(args.baseline, args) if args.baseline else None,
        command_options=recorded_options(args),
    )


def portfolio_lowerings(args: argparse.Namespace) -> list[Any]:
    """The campaign's lowerings; without --pipeline each mlir-opt one runs the
    portfolio (`args.pipeline` becomes PORTFOLIO, what campaign-start
    records), unless no lowering is an mlir-opt (then the default pipeline)."""
    from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
    from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO, PortfolioLowering

    if args.pipeline is not None:
        return lowerings(args)
    args.pipeline = PORTFOLIO
    chosen = lowerings(args)
    if not any(isinstance(lw, PortfolioLowering) for lw in chosen):
        args.pipeline = DEFAULT_PIPELINE
    return chosen


def resumed_options(args: argparse.Namespace, results: str | None) -> Any:
    """Options of the campaign being resumed: what defines the campaign comes
    from its campaign-start record; limits (time budget, timeouts), --db and
    --no-shrink from this command line; the command line's own options
    (--report, -j, ...) from the record where this one does not give them
    (verify.cli.fuzz_resume)."""
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions
    from gpu_alloc_verify.verify.campaign.resume import load_resume
    from gpu_alloc_verify.verify.cli.fuzz_resume import recorded_options, restore_options
    from gpu_alloc_verify.verify.model.machine import resolve_jobs

    if not results:
        raise UsageError("--resume needs the results file of the campaign: --results FILE "
                         "(or --report DIR holding results.jsonl)")
    state = load_resume(results)
    restored = restore_options(args, state.options)
    specs = state.setting("lowerings") or []
    if not specs:
        raise UsageError(f"{results}: campaign {state.campaign} names no lowering; "
                         "cannot resume it")
    if args.lowering and list(dict.fromkeys(args.lowering)) != list(specs):
        raise UsageError(f"--lowering {' '.join(args.lowering)} differs from campaign "
                         f"{state.campaign}'s ({' '.join(specs)}); drop --lowering to resume it")
    seed = state.setting("seed", 0)
    if args.seed is not None and args.seed != seed:  # the seed defines the programs drawn
        raise UsageError(f"--seed {args.seed} differs from campaign {state.campaign}'s "
                         f"({seed}); drop --seed to resume it")
    args.pipeline = state.setting("pipeline", args.pipeline)
    baseline = state.setting("baseline")
    invariants = state.setting("invariants") or None
    print(f"resuming campaign {state.campaign}: {state.recorded} program(s) recorded"
          + (f"; restored from {results}: {', '.join(restored)}" if restored else ""),
          file=sys.stderr)
    resumed = lowerings(args, specs)
    check = check_options(selected_invariants(invariants or args.invariant),
                          state.setting("runtime", args.runtime), args.solver_timeout,
                          campaign_truth(args.crosscheck_share))
    return FuzzOptions(
        lowerings=resumed, check=check,
        max_examples=state.max_examples(args.max_examples),
        time_budget=args.time_budget, seed=seed,
        db=args.db if args.db is not None else state.setting("db"),
        pipeline=args.pipeline,
        gen=state.gen_config(), shrink=not args.no_shrink and state.setting("shrink", True),
        results=results, batch_size=args.batch_size, jobs=resolve_jobs(args.jobs),
        baseline=resolve_lowering(baseline, args) if baseline else None,
        resume=state, command_options=recorded_options(args),
    )
