"""`gpu-alloc-verify`: fuzz, check, replay, report, lowerings, bench.

Exit status: 0 no violation, 1 at least one violation, 2 usage or
environment error (the message says what is missing and how to get it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verify.errors import GpuAllocVerifyError, UsageError
from verify.explain import render
from verify.lowerings.base import Lowering
from verify.lowerings.mlir_opt import DEFAULT_PIPELINE, DEFAULT_TIMEOUT_S, MlirOptLowering
from verify.lowerings.registry import available_specs, default_spec, resolve
from verify.pipeline import Tally, active_invariants, check_batch
from verify.solver import DEFAULT_TIMEOUT_MS
from verify.verdicts import INVARIANTS

RUNTIMES = ("cuda", "hip", "sycl")


def _lowerings(args: argparse.Namespace, specs: Sequence[str] | None = None) -> list[Lowering]:
    specs = list(specs if specs is not None else args.lowering or [])
    if not specs:
        spec, why = default_spec()
        print(f"lowering: {spec} ({why})", file=sys.stderr)
        specs = [spec]
    return [_resolve(s, args) for s in dict.fromkeys(specs)]


def _resolve(spec: str, args: argparse.Namespace) -> Lowering:
    lowering = resolve(spec, args.pipeline)
    timeout = getattr(args, "lowering_timeout", None)
    if timeout is not None and isinstance(lowering, MlirOptLowering):
        lowering.timeout_s = timeout
    return lowering


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value

    return parse


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lowering", action="append", metavar="SPEC",
                   help="lowering under test, repeatable: mlir-opt, mlir-opt-16/19/22, "
                   "mlir-opt:/path/to/mlir-opt, xdsl:NAME (default: newest mlir-opt found, "
                   "else xdsl:pr69969)")
    p.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                   help="pass pipeline for mlir-opt lowerings, as inside "
                   "builtin.module(...) (default: %(default)s)")
    p.add_argument("--runtime", choices=RUNTIMES, default="cuda",
                   help="runtime profile for runtime-contract (default: %(default)s)")
    p.add_argument("--invariant", action="append", metavar="ID",
                   help="check only these invariants (repeatable; default: all)")
    p.add_argument("--solver-timeout", type=_positive(int), default=DEFAULT_TIMEOUT_MS,
                   metavar="MS", help="limit of one Z3 query in milliseconds; a query that "
                   "runs out is verdict 'unknown' with its reason (default: %(default)s)")
    p.add_argument("--lowering-timeout", type=_positive(float), default=None, metavar="SEC",
                   help="limit of one mlir-opt process (a batch of programs) in seconds; "
                   "a hanging batch is bisected down to the program that hangs, which gets "
                   f"verdict timeout (default: {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-verify",
        description="Prove and test how MLIR lowers async GPU ops (gpu.alloc, gpu.wait, ...) "
        "to runtime calls. Exit 0: no violation; 1: a violation; 2: usage or environment "
        "error.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    fz = sub.add_parser("fuzz", help="generate random programs, lower, check, shrink")
    _common(fz)
    fz.add_argument("--max-examples", type=int, default=200, metavar="N")
    fz.add_argument("--time-budget", type=_positive(float), metavar="SEC",
                    help="stop generating after SEC seconds (this invocation's); the "
                    "pending batch is judged, found violations shrunk, campaign-end and the "
                    "report written")
    fz.add_argument("--seed", type=int, default=None,
                    help="Hypothesis seed (default: 0; a random one, printed and recorded, "
                    "when HYPOTHESIS_PROFILE=nightly)")
    fz.add_argument("--resume", action="store_true",
                    help="continue the latest campaign of --results FILE that has no "
                    "campaign-end (killed or interrupted): same id, seed, lowerings, pipeline, "
                    "runtime, generator settings and max-examples, recorded programs skipped")
    fz.add_argument("--max-ops", type=int, default=8, help="ops per function, at most")
    fz.add_argument("--linear-tokens", action="store_true",
                    help="each token used once, as gpu-async-region produces")
    fz.add_argument("--supported", type=int, metavar="VERSION",
                    help="generate only what upstream gpu-to-llvm of this LLVM version "
                    "lowers (16, 19, 22...), to tell 'breaks' from 'rejects'")
    fz.add_argument("-j", "--jobs", type=int, default=None,
                    help="worker processes judging each batch (default: one per core; "
                    "generation and shrinking stay in the campaign process)")
    fz.add_argument("--no-shrink", action="store_true", help="report first examples unshrunk")
    fz.add_argument("--baseline", metavar="SPEC",
                    help="regression mode: count only violations this lowering (e.g. the "
                    "released mlir-opt-19) does not have on the same program")
    fz.add_argument("--db", metavar="DIR",
                    help="Hypothesis example database directory: counterexamples found are "
                    "saved there and replayed first by the next campaign with the same "
                    "settings (default with HYPOTHESIS_PROFILE=nightly: $GPU_ALLOC_VERIFY_DB "
                    "or .hypothesis/nightly)")
    fz.add_argument("--results", metavar="FILE", help="append JSONL results here (one "
                    "fsynced line per program: a killed campaign keeps what it finished)")
    fz.add_argument("--batch-size", type=_positive(int), default=100, metavar="N",
                    help="programs lowered per batch (one mlir-opt process); a kill loses at "
                    "most the batch in flight (default: %(default)s)")
    fz.add_argument("--report", metavar="DIR", help="write an HTML report into DIR")

    ck = sub.add_parser("check", help="lower and check one .mlir file")
    ck.add_argument("file", metavar="FILE.mlir")
    _common(ck)

    rp = sub.add_parser("replay", help="re-check recorded violations of a results file")
    rp.add_argument("results", metavar="RESULTS.jsonl")
    rp.add_argument("--id", help="only the record with this id")
    rp.add_argument("--json", action="store_true")

    rep = sub.add_parser("report", help="render an HTML report from a results file")
    rep.add_argument("results", metavar="RESULTS.jsonl")
    rep.add_argument("-o", "--output", required=True, metavar="DIR")

    sub.add_parser("lowerings", help="list the lowerings this machine can run")
    sub.add_parser("invariants", help="list the invariant IDs")

    bn = sub.add_parser("bench", help="measure per-stage cost and throughput")
    bn.add_argument("--lowering", action="append", metavar="SPEC")
    bn.add_argument("--pipeline", default=DEFAULT_PIPELINE)
    bn.add_argument("--programs", type=int, default=200, help="programs per size")
    bn.add_argument("-j", "--jobs", type=int, default=None, help="worker processes")
    bn.add_argument("--repeat", type=int, default=3,
                    help="alternating lowering-only and end-to-end runs; medians are "
                         "reported (default 3)")
    bn.add_argument("--json", action="store_true")
    return parser


def _print_summary(summary: dict[str, Any], elapsed: float | None = None) -> None:
    print(f"{summary['examples']} program(s), lowerings: {', '.join(summary['lowerings'])}"
          + (f", {elapsed:.1f}s" if elapsed is not None else ""))
    for spec, per in summary["by_lowering"].items():
        print(f"\n{spec}")
        for inv, counts in per.items():
            shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
            print(f"  {inv:28} {shown}")
    for v in summary["violations"]:
        print("\n" + render(v), end="")


def cmd_check(args: argparse.Namespace) -> int:
    from verify.source_reader import read_program

    program = read_program(args.file)
    lowerings = _lowerings(args)
    invariants = active_invariants(args.invariant)
    row = check_batch([program], lowerings, invariants, args.runtime,
                      timeout_ms=args.solver_timeout)[0]
    tally = Tally()
    tally.add(row)
    violations = []
    for spec, j in row.items():
        for v in j.violations():
            violations.append({"invariant": v.invariant, "lowering": spec,
                               "program": program.to_mlir(), "lowered": j.lowered,
                               "detail": v.detail, "counterexample": v.counterexample,
                               "marked_calls": v.marked_calls})
    summary = {"examples": 1, "lowerings": list(row), "by_invariant": tally.by_invariant,
               "by_lowering": tally.by_lowering, "violations": violations}
    summary["unknown"] = [{"lowering": spec, "invariant": inv, "reason": r.reason
                           or "solver gave up"}
                          for spec, j in row.items() for inv, r in j.results.items()
                          if r.verdict == "unknown"]
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for spec, j in row.items():
            print(f"{spec}: lowering {j.status}")
            for inv, r in j.results.items():
                extra = f"  ({r.reason.splitlines()[0][:100]})" if r.reason and r.verdict in (
                    "unknown", "rejected") else ""
                print(f"  {inv:28} {r.verdict}{extra}")
                for v in r.violations:
                    print(f"    {v.detail}")
        for record in violations:
            print("\n" + render(record), end="")
    return 1 if violations else 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from verify.campaign_progress import ProgressPrinter
    from verify.fuzz import run_fuzz

    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    results = args.results
    if args.report and not results:
        results = str(Path(args.report) / "results.jsonl")
    opts = _resumed_options(args, results) if args.resume else _new_options(args, results)
    printer = ProgressPrinter()
    opts.progress = printer
    try:
        report = run_fuzz(opts)
    except KeyboardInterrupt:
        printer.done()
        if results:
            print(f"gpu-alloc-verify: interrupted; every finished program is in {results}; "
                  f"continue with: gpu-alloc-verify fuzz --results {results} --resume",
                  file=sys.stderr)
            return 130
        raise
    printer.done()
    summary = report.summary()
    if args.report:
        _render_report(results, args.report)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary, report.elapsed)
        if report.stopped_by == "time-budget":
            print(f"\n(time budget of {args.time_budget:g}s spent: generation stopped after "
                  f"{report.tally.examples} programs)")
        if args.report:
            print(f"\nreport: {args.report}/index.html")
    return 1 if report.found else 0


def _nightly() -> bool:
    return os.environ.get("HYPOTHESIS_PROFILE", "") == "nightly"


def _new_options(args: argparse.Namespace, results: str | None) -> Any:
    from generators.programs import GenConfig
    from verify.fuzz import FuzzOptions

    gen = GenConfig(max_ops=args.max_ops)
    if args.linear_tokens:
        gen = gen.linear()
    if args.supported is not None:
        gen = gen.supported_by(args.supported)
    seed, db = args.seed, args.db
    if seed is None:
        seed = random.randrange(2**31) if _nightly() else 0
        if _nightly():
            print(f"seed: {seed} (HYPOTHESIS_PROFILE=nightly; replay with --seed {seed})",
                  file=sys.stderr)
    if db is None and _nightly():
        db = os.environ.get("GPU_ALLOC_VERIFY_DB", ".hypothesis/nightly")
    return FuzzOptions(
        lowerings=_lowerings(args), invariants=active_invariants(args.invariant),
        max_examples=args.max_examples, time_budget=args.time_budget, seed=seed,
        db=db, runtime=args.runtime, pipeline=args.pipeline, gen=gen,
        shrink=not args.no_shrink, results=results, batch_size=args.batch_size,
        jobs=max(1, args.jobs or os.cpu_count() or 1),
        baseline=_resolve(args.baseline, args) if args.baseline else None,
        solver_timeout_ms=args.solver_timeout,
    )


def _resumed_options(args: argparse.Namespace, results: str | None) -> Any:
    """Options of the campaign being resumed: what defines the campaign comes
    from its campaign-start record; limits (time budget, timeouts), --db and
    --no-shrink from this command line."""
    from verify.campaign_resume import load_resume
    from verify.fuzz import FuzzOptions

    if not results:
        raise UsageError("--resume needs the results file of the campaign: --results FILE "
                         "(or --report DIR holding results.jsonl)")
    state = load_resume(results)
    specs = state.setting("lowerings") or []
    if not specs:
        raise UsageError(f"{results}: campaign {state.campaign} names no lowering; "
                         "cannot resume it")
    if args.lowering and list(dict.fromkeys(args.lowering)) != list(specs):
        raise UsageError(f"--lowering {' '.join(args.lowering)} differs from campaign "
                         f"{state.campaign}'s ({' '.join(specs)}); drop --lowering to resume it")
    args.pipeline = state.setting("pipeline", args.pipeline)
    baseline = state.setting("baseline")
    invariants = state.setting("invariants") or None
    print(f"resuming campaign {state.campaign}: {state.recorded} program(s) recorded",
          file=sys.stderr)
    return FuzzOptions(
        lowerings=_lowerings(args, specs),
        invariants=active_invariants(invariants or args.invariant),
        max_examples=state.max_examples(args.max_examples),
        time_budget=args.time_budget, seed=state.setting("seed", 0),
        db=args.db if args.db is not None else state.setting("db"),
        runtime=state.setting("runtime", args.runtime), pipeline=args.pipeline,
        gen=state.gen_config(), shrink=not args.no_shrink and state.setting("shrink", True),
        results=results, batch_size=args.batch_size,
        baseline=_resolve(baseline, args) if baseline else None,
        solver_timeout_ms=args.solver_timeout, resume=state,
    )


def _render_report(results: str | None, out_dir: str) -> None:
    if results is None:
        return
    try:
        from reports.html import render_report
    except ImportError as e:
        print(f"HTML report skipped: {e}", file=sys.stderr)
        return
    render_report(results, out_dir)


def cmd_report(args: argparse.Namespace) -> int:
    _render_report(args.results, args.output)
    print(f"report: {args.output}/index.html")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from verify.results import read_records
    from verify.source_reader import program_from_text

    records = [r for r in read_records(args.results) if r.get("kind") == "violation"
               and (args.id is None or r.get("id") == args.id)]
    if not records:
        raise UsageError(f"{args.results}: no violation record"
                         + (f" with id {args.id}" if args.id else ""))
    still = []
    for r in records:
        program = program_from_text(r["program"], r.get("id", "record"))
        lowering = resolve(r["lowering"], r.get("pipeline", DEFAULT_PIPELINE))
        j = check_batch([program], [lowering], active_invariants([r["invariant"]]))[0][
            lowering.spec]
        verdict = j.results[r["invariant"]].verdict if r["invariant"] in j.results else "?"
        still.append({"id": r.get("id"), "invariant": r["invariant"],
                      "lowering": r["lowering"], "verdict": verdict})
        if not args.json:
            print(f"{r.get('id')}: {r['invariant']} on {r['lowering']}: {verdict}")
    if args.json:
        print(json.dumps(still, indent=2))
    return 1 if any(s["verdict"] == "violated" for s in still) else 0


def cmd_lowerings(args: argparse.Namespace) -> int:
    specs = available_specs()
    if not specs:
        print("no lowering available: apt-get install mlir-19-tools", file=sys.stderr)
        return 2
    for spec, desc in specs:
        print(f"{spec:22} {desc}")
    return 0


def cmd_invariants(args: argparse.Namespace) -> int:
    active = set(active_invariants())
    for inv, desc in INVARIANTS.items():
        mark = "" if inv in active else "  (not implemented yet)"
        print(f"{inv:28} {desc}{mark}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    try:
        from verify.bench import run_bench
    except ImportError as e:
        raise UsageError(f"bench is not available in this build: {e}") from e
    return run_bench(args)


COMMANDS = {"fuzz": cmd_fuzz, "check": cmd_check, "replay": cmd_replay, "report": cmd_report,
            "lowerings": cmd_lowerings, "invariants": cmd_invariants, "bench": cmd_bench}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except GpuAllocVerifyError as e:
        print(f"gpu-alloc-verify: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gpu-alloc-verify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
