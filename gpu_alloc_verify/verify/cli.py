"""`gpu-alloc-verify` (also `python -m verify`): fuzz, check, replay, report,
lowerings, bench.  Defaults come from `[tool.gpu-alloc-verify]` in the nearest
pyproject.toml (verify.config); flags override them.

Exit status: 0 no violation and nothing unknown; 1 at least one violation
(and only then); 2 usage, input or environment error (the message says what
is missing and how to get it) or an internal error; 3 nothing violated but
some verdict unknown (`--allow-unknown` makes it 0), or `check` checked
nothing (every lowering rejected the file or could not take it; never 0);
130 interrupted; 141 stdout or stderr closed by its reader (`| head`),
quietly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.console import output_closed, quiet_exit_on_closed_pipe
from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.config import Config, load_config
from gpu_alloc_verify.verify.invariants.options import CHECK_TRUTH, CheckOptions, campaign_truth
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, Tally, active_invariants
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.invariants.witness import DEFAULT_CROSSCHECK_SHARE, TruthPolicy
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import (
    DEFAULT_PIPELINE,
    DEFAULT_TIMEOUT_S,
    MlirOptLowering,
)
from gpu_alloc_verify.verify.lowerings.registry import available_specs, default_spec, resolve
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError, UsageError
from gpu_alloc_verify.verify.model.verdicts import INVARIANTS, InvariantId, Verdict

RUNTIMES = ("cuda", "hip", "sycl")
# Version of the `--json` summary of fuzz and check; its shape is
# verify/schema/summary.schema.json.  Bump it when a field changes meaning or goes.
SCHEMA_VERSION = 2
EXIT_OK, EXIT_VIOLATION, EXIT_ERROR, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def exit_status(violated: bool, unknown: int, allow_unknown: bool = False) -> int:
    """1 for a violation (only then), 3 for unknown verdicts unless allowed, else 0."""
    if violated:
        return EXIT_VIOLATION
    if unknown and not allow_unknown:
        print(f"gpu-alloc-verify: no violation, but {unknown} verdict(s) unknown "
              "(not proven): exit 3; --allow-unknown makes it 0", file=sys.stderr)
        return EXIT_UNKNOWN
    return EXIT_OK


def count_verdicts(by_invariant: dict[str, dict[str, int]], verdict: Verdict) -> int:
    return sum(counts.get(verdict, 0) for counts in by_invariant.values())


def verdict_line(by_invariant: dict[str, dict[str, int]]) -> str:
    """The totals the summary ends with, unknown always shown (e.g. "3 violated, 2 unknown")."""
    violated = count_verdicts(by_invariant, Verdict.VIOLATED)
    unknown = count_verdicts(by_invariant, Verdict.UNKNOWN)
    holds = count_verdicts(by_invariant, Verdict.HOLDS)
    return f"{violated} violated, {unknown} unknown, {holds} holds"


def selected_invariants(selected: Sequence[str] | None) -> list[InvariantId]:
    """`--invariant` IDs checked against the known ones: a typo is a usage error."""
    known = active_invariants()
    bad = [i for i in dict.fromkeys(selected or []) if i not in known]
    if bad:
        raise UsageError(f"unknown invariant {', '.join(repr(b) for b in bad)} "
                         f"(--invariant); valid: {', '.join(known)}")
    return active_invariants(selected)


def check_options(invariants: Sequence[InvariantId], runtime: str, timeout_ms: int,
                  truth: TruthPolicy | None) -> CheckOptions:
    """The options of a command; an unknown runtime (a results file's, say) is a
    usage error."""
    try:
        return CheckOptions(tuple(invariants), runtime, timeout_ms, truth)
    except ValueError as e:
        raise UsageError(str(e)) from None


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
    check_pipeline(lowering)
    return lowering


def check_pipeline(lowering: Lowering) -> None:
    """A pipeline the tool cannot parse is a usage error, not a verdict on every program."""
    if not isinstance(lowering, MlirOptLowering):
        return
    why = lowering.pipeline_error()
    if why is not None:
        raise UsageError(f"--pipeline '{lowering.pipeline}' is not a pipeline "
                         f"{lowering.spec} accepts: {' '.join(why.split())}")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value


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


class _DefaultsFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default (as ArgumentDefaultsHelpFormatter),
    except where the help already says it, for flags (off unless given) and
    for None defaults, whose help says in words what happens without them."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if ("default" in text or not action.option_strings or action.nargs == 0
                or action.default in (None, argparse.SUPPRESS)):
            return action.help
        return f"{text} (default: %(default)s)".lstrip()


def _jobs(text: str) -> int:
    """`-j N`: N >= 1 worker processes, or 0 for one per available core."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (one per core) or more, not {text}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lowering", action="append", metavar="SPEC",
                   help="lowering under test, repeatable: mlir-opt, mlir-opt-16/19/22, "
                   "mlir-opt:/path/to/mlir-opt, xdsl:NAME (default: newest mlir-opt found, "
                   "else xdsl:pr69969)")
    p.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                   help="pass pipeline for mlir-opt lowerings, as inside "
                   "builtin.module(...) (default: %(default)s)")
    p.add_argument("--runtime", choices=RUNTIMES, default=None,
                   help="runtime profile for runtime-contract (default: hip when the "
                   "pipeline converts kernels to ROCDL, else cuda)")
    p.add_argument("--invariant", action="append", metavar="ID",
                   help="check only these invariants (repeatable; default: all)")
    p.add_argument("--solver-timeout", type=_positive(int), default=DEFAULT_TIMEOUT_MS,
                   metavar="MS", help="limit of one Z3 query in milliseconds; a query that "
                   "runs out is verdict 'unknown' with its reason (default: %(default)s)")
    p.add_argument("--lowering-timeout", type=_positive(float), default=None, metavar="SEC",
                   help="limit of one mlir-opt process (a batch of programs) in seconds; "
                   "a hanging batch is bisected down to the program that hangs, which gets "
                   f"verdict timeout (default: {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout "
                   "(schema: verify/schema/summary.schema.json)")
    p.add_argument("--junitxml", metavar="FILE",
                   help="also write JUnit XML to FILE: a testcase per (lowering, invariant), "
                   "a failure per violation, unknown verdicts skipped (default: none)")
    _allow_unknown(p)


def _allow_unknown(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-unknown", action="store_true",
                   help="exit 0 instead of 3 when nothing is violated but some verdict is "
                   "unknown (not proven either way)")


def _debug(p: argparse.ArgumentParser, default: Any) -> None:
    p.add_argument("--debug", action="store_true", default=default,
                   help="print the traceback of an internal error")


def version_string() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"gpu-alloc-verify {version('gpu-alloc-verify')}"
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "gpu-alloc-verify (version unknown: package not installed)"


def build_parser(config: Config | None = None) -> argparse.ArgumentParser:
    """The parser; `config` (pyproject.toml defaults) replaces the built-in
    defaults of --pipeline, --runtime and --max-examples (--lowering: see
    `apply_config`)."""
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-verify", formatter_class=_DefaultsFormatter,
        description="Prove and test how MLIR lowers async GPU ops (gpu.alloc, gpu.wait, ...) "
        "to runtime calls. Exit 0: no violation, nothing unknown; 1: a violation; 2: usage, "
        "input, environment or internal error; 3: no violation but some verdict unknown "
        "(0 with --allow-unknown), or nothing checked (every lowering rejected the file or "
        "could not take it).",
    )
    parser.add_argument("--version", action="version", version=version_string())
    _debug(parser, False)
    sub = parser.add_subparsers(dest="command", required=True)

    fz = sub.add_parser("fuzz", help="generate random programs, lower, check, shrink")
    _fuzz_arguments(fz)
    ck = sub.add_parser("check", help="lower and check .mlir files")
    # dest "files": cmd_check keeps judging one args.file, which check_files sets.
    ck.add_argument("files", nargs="+", metavar="FILE.mlir",
                    help="files to check, each on its own, in order; - reads standard input "
                    "(named <stdin>); exit status: the worst of the files' (2 error > 1 "
                    "violation > 3 unknown or nothing checked > 0)")
    _common(ck)
    _replay_arguments(sub.add_parser(
        "replay", help="re-check recorded violations of a results file"))
    _findings_arguments(sub.add_parser(
        "findings", help="catalogue the upstream defects found over every installed mlir-opt "
        "and the usual pipelines (markdown + lit tests)"))
    _triage_arguments(sub.add_parser(
        "triage", help="bucket a results file's violations into root causes"))
    rep = sub.add_parser("report", help="render an HTML report from a results file")
    rep.add_argument("results", metavar="RESULTS.jsonl")
    rep.add_argument("-o", "--output", metavar="DIR",
                     help="directory to write index.html into (default: RESULTS-report "
                     "beside the results file, e.g. runs/c1.jsonl -> runs/c1-report)")
    sub.add_parser("lowerings", help="list the lowerings this machine can run")
    sub.add_parser("invariants", help="list the invariant IDs")
    bn = sub.add_parser("bench", help="measure per-stage cost and throughput")
    _bench_arguments(bn)
    _selfcheck_arguments(sub.add_parser(
        "selfcheck", help="fuzz the analysis against execution on mutated lowered code"))

    for p in sub.choices.values():  # --debug after the command too; SUPPRESS keeps the global
        _debug(p, argparse.SUPPRESS)
        p.formatter_class = _DefaultsFormatter  # add_parser does not inherit it
    if config is not None:
        _config_defaults(config, fuzz=fz, check=ck, bench=bn)
    return parser


def _fuzz_arguments(fz: argparse.ArgumentParser) -> None:
    _common(fz)
    fz.add_argument("--max-examples", type=int, default=200, metavar="N",
                    help="programs to generate and judge")
    fz.add_argument("--time-budget", type=_positive(float), metavar="SEC",
                    help="stop generating after SEC seconds (this invocation's); the "
                    "pending batch is judged, found violations shrunk, campaign-end and the "
                    "report written (default: none, --max-examples alone ends the search)")
    fz.add_argument("--seed", type=int, default=None, metavar="S",
                    help="Hypothesis seed: the same seed draws the same programs (default: "
                    "a random one per run, printed at the start and recorded in the results; "
                    "0 with CI=true, derandomized as Hypothesis's ci profile, unless "
                    "HYPOTHESIS_PROFILE=nightly)")
    fz.add_argument("--resume", action="store_true",
                    help="continue the latest campaign of --results FILE that has no "
                    "campaign-end (killed or interrupted): same id, seed, lowerings, pipeline, "
                    "runtime, generator settings and max-examples, recorded programs skipped")
    fz.add_argument("--crosscheck-share", type=_share, default=DEFAULT_CROSSCHECK_SHARE,
                    metavar="F",
                    help="share of programs (0 to 1) whose holds verdicts are cross-checked "
                    "by running the lowered code on boundary inputs; every violation is "
                    "always run (default: %(default)s)")
    fz.add_argument("--max-ops", type=int, default=8, metavar="N",
                    help="ops per function, at most")
    fz.add_argument("--linear-tokens", action="store_true",
                    help="each token used once, as gpu-async-region produces")
    fz.add_argument("--cf-tokens", action="store_true",
                    help="also tokens that cross control flow: scf.if yielding a token, "
                    "scf.for carrying one in iter_args (upstream's token-as-event defect)")
    fz.add_argument("--alloc-spaces", action="store_true",
                    help="also gpu.alloc and memref.alloc in memory space 1 (19 and 22 "
                    "emit invalid IR for such an async gpu.alloc)")
    fz.add_argument("--supported", type=int, metavar="VERSION",
                    help="generate only what upstream gpu-to-llvm of this LLVM version "
                    "lowers (16, 19, 22...), to tell 'breaks' from 'rejects' (default: "
                    "none, everything the generator knows)")
    fz.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                    help="worker processes judging each batch, 0 for one per core this "
                    "process may use (generation and shrinking stay in the campaign process)")
    fz.add_argument("--no-shrink", action="store_true", help="report first examples unshrunk")
    fz.add_argument("--baseline", metavar="SPEC",
                    help="regression mode: count only violations this lowering (e.g. the "
                    "released mlir-opt-19) does not have on the same program (default: none, "
                    "every violation counts)")
    fz.add_argument("--db", metavar="DIR|redis://HOST:PORT/N",
                    help="Hypothesis example database, a directory or a Redis database "
                    "(shared by a cluster's workers): counterexamples found are "
                    "saved there and replayed first by the next campaign with the same "
                    "settings (default: none; with HYPOTHESIS_PROFILE=nightly "
                    "$GPU_ALLOC_VERIFY_DB or .hypothesis/nightly)")
    fz.add_argument("--results", metavar="FILE", help="append JSONL results here (one "
                    "fsynced line per program: a killed campaign keeps what it finished) "
                    "(default: DIR/results.jsonl with --report DIR, else none)")
    fz.add_argument("--batch-size", type=_positive(int), default=100, metavar="N",
                    help="programs lowered per batch (one mlir-opt process); a kill loses at "
                    "most the batch in flight (default: %(default)s)")
    fz.add_argument("--report", metavar="DIR", help="write an HTML report into DIR "
                    "(default: none; `gpu-alloc-verify report` renders one later)")
    fz.add_argument("-v", "--verbose", action="store_true",
                    help="also print every shrunk counterexample and every unknown reason "
                    "in full (default: one screen; --json, JUnit and the report have all)")
    from gpu_alloc_verify.verify.campaign.cluster_options import (
        add_arguments as add_cluster_arguments,
    )

    add_cluster_arguments(fz)  # --cluster, --shards, --shard-pipeline, --shard-config


def _replay_arguments(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("results", metavar="RESULTS.jsonl")
    rp.add_argument("--id", help="only the violation record with this id, its counterexample "
                    "printed (default: every violation record)")
    rp.add_argument("--json", action="store_true", help="print a JSON list on stdout")
    _allow_unknown(rp)


def _findings_arguments(fd: argparse.ArgumentParser) -> None:
    fd.add_argument("-o", "--output", default="FINDINGS.md", metavar="FILE.md",
                    help="the catalogue to write")
    fd.add_argument("--lowering", action="append", metavar="SPEC",
                    help="repeatable (default: every installed mlir-opt-N)")
    fd.add_argument("--pipeline", action="append", metavar="P",
                    help="repeatable (default: gpu-to-llvm, with gpu-async-region, with "
                    "convert-scf-to-cf, with kernels converted)")
    fd.add_argument("--max-examples", type=int, default=300, metavar="N",
                    help="programs per (version, pipeline) (default: %(default)s)")
    # Fixed, unlike fuzz's: the catalogue is regenerated and diffed.
    fd.add_argument("--seed", type=int, default=0, metavar="S", help="Hypothesis seed")
    fd.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                    help="worker processes, 0 for one per core")
    fd.add_argument("--results", metavar="FILE", help="the campaigns' results file "
                    "(default: findings.jsonl beside the output, appended to)")
    fd.add_argument("--lit", metavar="DIR", help="lit tests (default: findings-lit/ beside "
                    "the output)")
    fd.add_argument("--reuse-results", action="store_true", help="run no campaign: catalogue "
                    "the campaigns --results FILE holds already")


def _triage_arguments(tr: argparse.ArgumentParser) -> None:
    tr.add_argument("results", metavar="RESULTS.jsonl")
    tr.add_argument("--json", action="store_true", help="print one JSON object on stdout "
                    "(schema: verify/schema/triage.schema.json)")
    tr.add_argument("--lit", metavar="DIR", help="also write a proven lit test per root cause "
                    "and lit.cfg.py into DIR (run: lit -v DIR) (default: none)")
    tr.add_argument("--fixed", metavar="SPEC", default="xdsl:reference",
                    help="the fixed lowering each lit test must pass on (default: %(default)s; "
                    "'none' for no such check)")


def _selfcheck_arguments(sc: argparse.ArgumentParser) -> None:
    # Its own dest: the config's lowerings (apply_config) are not this default.
    sc.add_argument("--lowering", action="append", metavar="SPEC", dest="selfcheck_lowering",
                    help="repeatable (default: mlir-opt-19, mlir-opt-22, xdsl:split-api)")
    sc.add_argument("--mutants", type=int, default=200, metavar="N",
                    help="valid mutants to judge (default: %(default)s)")
    sc.add_argument("--seed", type=int, default=0, metavar="S",
                    help="seed of the mutants drawn (fixed: a CI gate)")
    sc.add_argument("--out", metavar="DIR", help="save each disagreeing mutant here "
                    "(default: none)")
    sc.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _bench_arguments(bn: argparse.ArgumentParser) -> None:
    bn.add_argument("--lowering", action="append", metavar="SPEC",
                    help="repeatable (default: newest mlir-opt found, else xdsl:pr69969)")
    bn.add_argument("--pipeline", default=DEFAULT_PIPELINE, metavar="P",
                    help="pass pipeline for mlir-opt lowerings")
    bn.add_argument("--programs", type=int, default=200, metavar="N", help="programs per size")
    bn.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                    help="worker processes, 0 for one per core")
    bn.add_argument("--repeat", type=int, default=3, metavar="N",
                    help="alternating lowering-only and end-to-end runs; medians are "
                         "reported")
    bn.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _config_defaults(config: Config, fuzz: argparse.ArgumentParser,
                     check: argparse.ArgumentParser, bench: argparse.ArgumentParser) -> None:
    """The defaults pyproject.toml gives, in place of the built-in ones."""
    for p in (fuzz, check, bench):
        if config.pipeline is not None:
            p.set_defaults(pipeline=config.pipeline)
    for p in (fuzz, check):
        if config.runtime is not None:
            p.set_defaults(runtime=config.runtime)
    if config.max_examples is not None:
        fuzz.set_defaults(max_examples=config.max_examples)


def apply_config(args: argparse.Namespace, config: Config) -> None:
    """`lowerings` from the config where no --lowering was given (a default
    list under action="append" would be added to, not replaced)."""
    if config.lowerings and getattr(args, "lowering", "absent") is None:
        args.lowering = list(config.lowerings)
    if hasattr(args, "runtime") and args.runtime is None:
        args.runtime = _runtime_for(getattr(args, "pipeline", None))
    if config.path is not None and args.command in ("fuzz", "check", "bench"):
        print(f"defaults: {config.path} [tool.gpu-alloc-verify] "
              f"({', '.join(config.keys) or 'empty'})", file=sys.stderr)


def _runtime_for(pipeline: str | None) -> str:
    """The runtime the pipeline's kernels are built for (a ROCDL pipeline:
    hip), else cuda; said on stderr when it is not cuda."""
    from gpu_alloc_verify.verify.lowerings.pass_pipeline import PipelineSyntaxError, parse

    try:
        found = parse(pipeline).runtime() if pipeline else None
    except PipelineSyntaxError:
        return "cuda"  # the pipeline's own error is reported where it is used
    if found is None:
        return "cuda"
    print(f"runtime: {found} (the pipeline builds ROCDL kernels; --runtime to choose)",
          file=sys.stderr)
    return found


def _print_summary(summary: dict[str, Any], elapsed: float | None = None,
                   results: str | None = None, verbose: bool = False,
                   drawn: int | None = None, max_examples: int | None = None) -> None:
    """One screen: verdict table, root causes, counterexamples, unknowns
    grouped, the meaning of each count, the verdict line last; `verbose`
    adds every counterexample and every unknown reason in full."""
    from gpu_alloc_verify.reports.console import columns
    from gpu_alloc_verify.verify.campaign import summary_text as st

    width = columns(sys.stdout)
    triage = _triage(results) if results and summary["violations"] else None
    sections = [
        [st.headline(summary, elapsed, drawn, max_examples)],
        st.table_lines(summary),
        st.root_cause_lines(triage, results, width, summary.get("analysis_defects") or []),
        st.counterexample_lines(summary["violations"], results, width),
        [] if verbose else st.unknown_lines(summary.get("unknown") or [], width,
                                            len(summary["lowerings"]) > 1)
        + st.coverage_line(summary.get("oracle_coverage") or [], width),
    ]
    print("\n\n".join("\n".join(lines) for lines in sections if lines))
    if verbose:
        for v in summary["violations"]:
            repro = f"gpu-alloc-verify replay {results} --id {v['id']}" if results else None
            print("\n" + render(v, repro=repro), end="")
        _print_unknown(summary.get("unknown") or [])
        _print_oracle_coverage(summary.get("oracle_coverage") or [])
    print("\n" + "\n".join(st.vocabulary(summary, triage, width, drawn)))
    print(f"\n{summary['examples']} program(s): {verdict_line(summary['by_invariant'])}")


def _triage(results: str) -> Any:
    """The root causes of the results file (None, said once, when triage fails)."""
    from gpu_alloc_verify.verify.triage.buckets import triage_file

    if not Path(results).is_file():
        return None
    try:
        return triage_file(results)  # cached per file: the report reuses it
    except GpuAllocVerifyError as e:
        print(f"(triage skipped: {e})")
        return None


def _check_repro(args: argparse.Namespace, record: dict[str, Any]) -> str:
    """The one command that reproduces a `check` violation."""
    from gpu_alloc_verify.verify.source.user_file import STDIN_NAME

    file = "-" if args.file == STDIN_NAME else args.file  # as typed: `check -`
    cmd = ["gpu-alloc-verify", "check", file, "--lowering", str(record["lowering"]),
           "--invariant", str(record["invariant"])]
    if args.pipeline != DEFAULT_PIPELINE:
        cmd += ["--pipeline", args.pipeline]
    if args.runtime != "cuda":
        cmd += ["--runtime", args.runtime]
    import shlex

    return shlex.join(cmd)


def _print_oracle_coverage(entries: Sequence[dict[str, Any]]) -> None:
    """How much a testing oracle's "holds" covered, per lowering."""
    if entries:
        print("\nCOVERAGE of testing-oracle holds (exhaustive, or sampled k of n):")
    for e in entries:
        print(f"  {e['invariant']} on {e['lowering']}: holds ({e['coverage']}) "
              f"on {e['count']} program(s)")


def _print_unknown(entries: Sequence[dict[str, Any]]) -> None:
    if not entries:
        return
    print("\nUNKNOWN (not proven either way, never counted as holds):")
    for u in entries:
        times = f" ({u['count']} program(s))" if u.get("count") else ""
        reason = str(u.get("reason") or "solver gave up").splitlines()[0]  # in full
        print(f"  {u['invariant']} on {u['lowering']}: {reason}{times}")


# Worst first: a file that could not be read (2) beats a violation (1), as
# grep's error beats its matches: the run is incomplete.  A violation beats
# unknown or nothing checked (3), which beats 0.
_CHECK_RANK = {EXIT_ERROR: 3, EXIT_VIOLATION: 2, EXIT_UNKNOWN: 1, EXIT_OK: 0}
_CHECK_SAID = {EXIT_OK: "no violation", EXIT_VIOLATION: "violated",
               EXIT_UNKNOWN: "unknown or nothing checked", EXIT_ERROR: "error"}


def worst_status(statuses: Sequence[int]) -> int:
    """The exit status of `check` over several files (_CHECK_RANK)."""
    return max(statuses, key=lambda s: _CHECK_RANK.get(s, 3), default=EXIT_OK)


def check_files(args: argparse.Namespace) -> int:
    """`check FILE...`: each file judged on its own by cmd_check (args.file
    set per file), in order; `-` is standard input, named <stdin>.  With
    several files, one that cannot be read is an error line on stderr and the
    next is checked; text output has a `==> FILE <==` header per file and a
    status per file at the end; --json prints one object per file checked;
    --junitxml one testsuite per file.  Exit status: worst_status."""
    from gpu_alloc_verify.verify.model.errors import SourceParseError
    from gpu_alloc_verify.verify.source.user_file import STDIN_NAME

    files = [STDIN_NAME if f == "-" else f for f in args.files]
    if files.count(STDIN_NAME) > 1:
        raise UsageError("- (standard input) given more than once; it can be read once")
    if not args.lowering:  # said once, not once per file
        spec, why = default_spec()
        print(f"lowering: {spec} ({why})", file=sys.stderr)
        args.lowering = [spec]
    if len(files) == 1:
        args.file = files[0]
        return cmd_check(args)
    import tempfile

    from gpu_alloc_verify.reports.junit_merge import merge_junit

    done: list[tuple[str, int]] = []
    parts: list[Path] = []
    errors: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="gpu-alloc-verify-junit-") as tmp:
        for k, name in enumerate(files):
            one = argparse.Namespace(**vars(args))
            one.file = name
            if args.junitxml:  # one file each, merged below: each run writes a whole file
                one.junitxml = str(Path(tmp) / f"{k}.xml")
            if not args.json:
                print(f"{chr(10) if k else ''}==> {name} <==")
            try:
                status = cmd_check(one)
            except SourceParseError as e:
                print(f"gpu-alloc-verify: error: {e}", file=sys.stderr)
                errors.append((name, str(e)))
                status = EXIT_ERROR
            if one.junitxml and Path(one.junitxml).is_file():
                parts.append(Path(one.junitxml))
            done.append((name, status))
        if args.junitxml:
            merge_junit(parts, errors, args.junitxml)
    worst = worst_status([status for _, status in done])
    if not args.json:
        print(f"\n{len(files)} files, exit status {worst}:")
        for name, status in done:
            print(f"  {name}: {_CHECK_SAID.get(status, str(status))}")
    return worst


def cmd_check(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.campaign.check_file import check_file
    from gpu_alloc_verify.verify.campaign.nothing_checked import case_reasons, nothing_checked

    invariants = selected_invariants(args.invariant)
    lowerings = _lowerings(args)
    written, row = check_file(args.file, lowerings, check_options(
        invariants, args.runtime, args.solver_timeout, CHECK_TRUTH))
    summary = _check_summary(written, row, args.file)
    # Every lowering rejected the file or could not take it: exit 3, never 0
    # (--allow-unknown is about unknown verdicts, not this).
    unchecked = nothing_checked(row)
    if args.junitxml:
        from gpu_alloc_verify.reports.junit import write_junit

        write_junit(args.junitxml, summary, f"gpu-alloc-verify check {args.file}",
                    nothing_checked=unchecked, case_reasons=case_reasons(row))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_check(row, summary, args)
    if unchecked is not None:
        print(f"gpu-alloc-verify: nothing checked: {unchecked}: exit 3", file=sys.stderr)
        return EXIT_UNKNOWN
    unknown = count_verdicts(summary["by_invariant"], Verdict.UNKNOWN)
    return exit_status(bool(summary["violations"]), unknown, args.allow_unknown)


def check_violation_id(file: str, lowering: str, invariant: str) -> str:
    """Stable id of a `check` violation: the same file path (as given),
    lowering and invariant give the same id on every run and machine."""
    key = "\0".join((Path(file).as_posix(), lowering, invariant)).encode("utf-8")
    return "k" + hashlib.sha256(key).hexdigest()[:12]


def _check_summary(text: str, row: dict[str, Judgement], file: str = "") -> dict[str, Any]:
    tally = Tally()
    tally.add(row)
    violations: list[dict[str, Any]] = [
        {"id": "", "invariant": v.invariant, "lowering": spec, "program": text,
         "lowered": j.lowered, "detail": v.detail,
         "counterexample": v.counterexample, "marked_calls": v.marked_calls,
         "confirmation": v.confirmation}
        for spec, j in row.items() for v in j.violations()]
    defects = [{"lowering": spec, **d.to_json()} for spec, j in row.items()
               for d in j.disagreements]
    unknown = [{"lowering": spec, "invariant": inv, "reason": r.reason or "solver gave up"}
               for spec, j in row.items() for inv, r in j.results.items()
               if r.verdict == Verdict.UNKNOWN]
    coverage = [{"lowering": spec, "invariant": inv, "coverage": r.coverage, "count": 1}
                for spec, j in row.items() for inv, r in j.results.items()
                if r.verdict == Verdict.HOLDS and r.coverage]
    seen: dict[str, int] = {}
    for v in violations:  # a second violation of one (lowering, invariant): id-2, id-3...
        base = check_violation_id(file, str(v["lowering"]), str(v["invariant"]))
        seen[base] = seen.get(base, 0) + 1
        v["id"] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return {"schema_version": SCHEMA_VERSION, "command": "check", "seed": None,
            "examples": 1, "lowerings": list(row), "by_invariant": tally.by_invariant,
            "by_lowering": tally.by_lowering, "violations": violations, "unknown": unknown,
            "analysis_defects": defects, "oracle_coverage": coverage}


def _print_check(row: dict[str, Judgement], summary: dict[str, Any],
                 args: argparse.Namespace | None = None) -> None:
    for spec, j in row.items():
        print(f"{spec}: lowering {j.status}")
        for note in j.notes:
            print(f"  ({note})")
        for inv, r in j.results.items():
            extra = f"  ({r.reason.splitlines()[0][:100]})" if r.reason and r.verdict in (
                Verdict.UNKNOWN, Verdict.REJECTED, Verdict.NOT_APPLICABLE) else ""
            if r.verdict == Verdict.HOLDS and r.coverage:
                extra = f" ({r.coverage})"
            print(f"  {inv:28} {r.verdict}{extra}")
            for v in r.violations:
                print(f"    {v.detail}")
                if v.confirmation:
                    print(f"    ({v.confirmation})")
    for d in summary["analysis_defects"]:
        print(f"\nANALYSIS DEFECT ({d['kind']}) on {d['lowering']}, {d['invariant']}: the "
              f"analysis said {d['analysis']}; execution: {d['execution']}")
    for record in summary["violations"]:
        repro = _check_repro(args, record) if args is not None else None
        print("\n" + render(record, repro=repro,
                            program_name=args.file if args is not None else "program"), end="")
    _print_unknown(summary["unknown"])
    from gpu_alloc_verify.verify.campaign.nothing_checked import nothing_checked

    unchecked = nothing_checked(row)  # then a "holds" total would read as green
    print(f"\n{len(row)} lowering(s): " + (f"nothing checked: {unchecked}" if unchecked
                                          else verdict_line(summary["by_invariant"])))


def cmd_fuzz(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.campaign.fuzz import run_fuzz
    from gpu_alloc_verify.verify.campaign.progress import ProgressPrinter

    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    results = args.results
    if args.report and not results:
        results = str(Path(args.report) / "results.jsonl")
    opts = _resumed_options(args, results) if args.resume else _new_options(args, results)
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
            print(f"gpu-alloc-verify: interrupted; every finished program is in {results}; "
                  f"continue with: gpu-alloc-verify fuzz --results {results} --resume",
                  file=sys.stderr)
            return 130
        raise
    printer.done()
    summary = _fuzz_summary(report.summary(), opts, results)
    if args.report:
        _render_report(results, args.report)
    if args.junitxml:
        from gpu_alloc_verify.reports.junit import write_junit

        write_junit(args.junitxml, summary, "gpu-alloc-verify fuzz", report.elapsed)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary, report.elapsed, results, verbose=args.verbose,
                       drawn=getattr(report, "generated", None), max_examples=args.max_examples)
        if report.stopped_by == "time-budget":
            print(f"\n(time budget of {args.time_budget:g}s spent: generation stopped after "
                  f"{report.tally.examples} programs)")
        if args.report:
            print(f"report: {args.report}/index.html")
    unknown = count_verdicts(summary["by_invariant"], Verdict.UNKNOWN)
    return exit_status(bool(report.found or report.first_seen), unknown, args.allow_unknown)


def _fuzz_summary(summary: dict[str, Any], opts: Any, results: str | None) -> dict[str, Any]:
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


def _new_options(args: argparse.Namespace, results: str | None) -> Any:
    from gpu_alloc_verify.generators.programs import GenConfig
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions
    from gpu_alloc_verify.verify.model.machine import resolve_jobs

    # Opt-in: each adds draws, so default campaigns and their seeds stay as they were.
    gen = GenConfig(max_ops=args.max_ops, cf_tokens=args.cf_tokens,
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
    return FuzzOptions(
        check=check, lowerings=_lowerings(args),
        max_examples=args.max_examples, time_budget=args.time_budget, seed=seed,
        db=db, pipeline=args.pipeline, gen=gen,
        shrink=not args.no_shrink, results=results, batch_size=args.batch_size,
        jobs=resolve_jobs(args.jobs),
        baseline=_resolve(args.baseline, args) if args.baseline else None,
    )


def _resumed_options(args: argparse.Namespace, results: str | None) -> Any:
    """Options of the campaign being resumed: what defines the campaign comes
    from its campaign-start record; limits (time budget, timeouts), --db and
    --no-shrink from this command line."""
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions
    from gpu_alloc_verify.verify.campaign.resume import load_resume

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
    seed = state.setting("seed", 0)
    if args.seed is not None and args.seed != seed:  # the seed defines the programs drawn
        raise UsageError(f"--seed {args.seed} differs from campaign {state.campaign}'s "
                         f"({seed}); drop --seed to resume it")
    args.pipeline = state.setting("pipeline", args.pipeline)
    baseline = state.setting("baseline")
    invariants = state.setting("invariants") or None
    print(f"resuming campaign {state.campaign}: {state.recorded} program(s) recorded",
          file=sys.stderr)
    lowerings = _lowerings(args, specs)
    check = check_options(selected_invariants(invariants or args.invariant),
                          state.setting("runtime", args.runtime), args.solver_timeout,
                          campaign_truth(args.crosscheck_share))
    return FuzzOptions(
        lowerings=lowerings, check=check,
        max_examples=state.max_examples(args.max_examples),
        time_budget=args.time_budget, seed=seed,
        db=args.db if args.db is not None else state.setting("db"),
        pipeline=args.pipeline,
        gen=state.gen_config(), shrink=not args.no_shrink and state.setting("shrink", True),
        results=results, batch_size=args.batch_size,
        baseline=_resolve(baseline, args) if baseline else None,
        resume=state,
    )


def _render_report(results: str | None, out_dir: str) -> None:
    if results is None:
        return
    try:
        from gpu_alloc_verify.verify.campaign.report import write_report
    except ImportError as e:
        print(f"HTML report skipped: {e}", file=sys.stderr)
        return
    from gpu_alloc_verify.reports.report_progress import ReportProgress

    progress = ReportProgress()  # triage and lit proofs take a while: say so
    write_report(results, out_dir, progress=progress)
    progress.done()


def cmd_triage(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.triage.buckets import format_triage, triage_file

    triage = triage_file(args.results, progress=lambda msg: print(msg, file=sys.stderr))
    if args.json:
        print(json.dumps(triage.to_json(), indent=2))
    else:
        print(format_triage(triage), end="")
    if args.lit:
        from gpu_alloc_verify.repro.export import export_buckets, format_exports

        fixed = None if args.fixed == "none" else args.fixed
        tests = export_buckets(triage.buckets, args.lit, fixed)
        print(format_exports(tests, args.lit), end="", file=sys.stderr if args.json else None)
    return 0


def cmd_findings(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.findings import PIPELINES, build_findings, installed_versions
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


def cmd_report(args: argparse.Namespace) -> int:
    output = args.output or str(default_report_dir(args.results))
    _render_report(args.results, output)
    print(f"report: {output}/index.html")
    return 0


def default_report_dir(results: str) -> Path:
    """`report` without -o: RESULTS-report beside the results file, so two
    results files in one directory never share (and overwrite) a report."""
    path = Path(results)
    return path.with_name(f"{path.stem}-report")


def cmd_replay(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.campaign.replay import replay

    still = replay(args.results, args.id, check_pipeline)
    if args.json:
        print(json.dumps(still, indent=2))
    else:
        for s in still:
            why = f"  ({s['reason'].splitlines()[0][:100]})" if (
                s["verdict"] == Verdict.UNKNOWN and s["reason"]) else ""
            print(f"{s['id']}: {s['invariant']} on {s['lowering']} (runtime {s['runtime']}, "
                  f"pipeline '{s['pipeline']}'): {s['verdict']}{why}")
            for v in s.get("violations") or []:  # the counterexample, as `check` prints it
                print("\n" + render(v), end="")
    unknown = sum(1 for s in still if s["verdict"] == Verdict.UNKNOWN)
    return exit_status(any(s["verdict"] == Verdict.VIOLATED for s in still), unknown,
                       args.allow_unknown)


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
        from gpu_alloc_verify.verify.campaign.bench import run_bench
    except ImportError as e:
        raise UsageError(f"bench is not available in this build: {e}") from e
    return run_bench(args)


def cmd_selfcheck(args: argparse.Namespace) -> int:
    """Exit 1 when some mutant shows the analysis unsound, else 0."""
    from gpu_alloc_verify.verify.campaign.selfcheck import (
        DEFAULT_LOWERINGS,
        Options,
        render,
        run_selfcheck,
    )

    if args.mutants < 1:
        raise UsageError("--mutants must be at least 1")
    specs = list(dict.fromkeys(args.selfcheck_lowering or DEFAULT_LOWERINGS))
    for spec in specs:
        resolve(spec)  # an unknown or uninstalled lowering is a usage error here
    opts = Options(specs, args.mutants, args.seed, Path(args.out) if args.out else None,
                   progress=sys.stderr)
    report = run_selfcheck(opts)
    print(json.dumps(report.to_json(), indent=2) if args.json else render(report))
    return 1 if report.unsound else 0


COMMANDS = {"fuzz": cmd_fuzz, "check": check_files, "replay": cmd_replay, "report": cmd_report,
            "triage": cmd_triage, "findings": cmd_findings,
            "lowerings": cmd_lowerings, "invariants": cmd_invariants, "bench": cmd_bench,
            "selfcheck": cmd_selfcheck}


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; its exit status.  A closed stdout or stderr (the
    reader of `| head` gone) ends the command quietly with EXIT_CLOSED_PIPE
    (reports.console), never a traceback or "Broken pipe"."""
    try:
        try:
            status = _main(argv)
        except SystemExit:  # --help, --version, a usage error: flushed while a closed
            sys.stdout.flush()  # pipe can still be handled, not at interpreter exit
            raise
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        if not output_closed():
            raise
        return quiet_exit_on_closed_pipe()


def _main(argv: Sequence[str] | None) -> int:
    try:
        config, config_error = load_config(), None
    except GpuAllocVerifyError as e:  # only commands that use the defaults fail on it
        config, config_error = Config(), e
    parser = build_parser(config)
    args = parser.parse_args(argv)
    try:
        if config_error is not None and args.command in ("fuzz", "check", "bench"):
            raise config_error
        apply_config(args, config)
        return COMMANDS[args.command](args)
    except GpuAllocVerifyError as e:
        print(f"gpu-alloc-verify: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gpu-alloc-verify: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as e:  # a file or directory the command cannot read or write
        if isinstance(e, BrokenPipeError) and output_closed():
            raise  # `| head` is done reading: main ends quietly
        if args.debug:
            traceback.print_exc(file=sys.stderr)
        print(f"gpu-alloc-verify: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - a bug is exit 2, never 1 ("violation")
        return _internal_error(e, args.debug)


def _internal_error(e: Exception, debug: bool) -> int:
    if debug:
        traceback.print_exc(file=sys.stderr)
    hint = "" if debug else " (run with --debug for the traceback)"
    print(f"gpu-alloc-verify: internal error: {type(e).__name__}: {_one_line(str(e))}{hint}",
          file=sys.stderr)
    return EXIT_ERROR


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
