"""`fuzz`'s arguments, in groups: the lowering under test, what to check,
the programs generated, the campaign's size and time, output, cluster."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import (
    CLUSTER,
    PROGRAMS,
    SIZE,
    Group,
    checks_group,
    jobs,
    lowering_group,
    output_group,
    positive,
    share,
)
from gpu_alloc_verify.verify.invariants.witness import DEFAULT_CROSSCHECK_SHARE


def add_arguments(fz: argparse.ArgumentParser) -> None:
    lowering_group(fz).add_argument(
        "--baseline", metavar="SPEC",
        help="regression mode: count only violations this lowering (e.g. the "
        "released mlir-opt-19) does not have on the same program (default: none, "
        "every violation counts)")
    checks_group(fz).add_argument(
        "--crosscheck-share", type=share, default=DEFAULT_CROSSCHECK_SHARE, metavar="F",
        help="share of programs (0 to 1) whose holds verdicts are cross-checked "
        "by running the lowered code on boundary inputs; every violation is "
        "always run (default: %(default)s)")
    _portfolio_default(fz)
    _program_arguments(fz.add_argument_group(PROGRAMS))
    _size_arguments(fz.add_argument_group(SIZE))
    _output_arguments(output_group(fz))
    _cluster_arguments(fz.add_argument_group(CLUSTER))


def _portfolio_default(fz: argparse.ArgumentParser) -> None:
    """No --pipeline: the campaign spreads its programs over the portfolio
    (verify.lowerings.portfolio); --pipeline P runs P alone."""
    fz.set_defaults(pipeline=None)
    for action in fz._actions:
        if action.dest == "pipeline":
            action.help = ("pass pipeline for mlir-opt lowerings, as inside builtin.module(...) "
                           "(default: a portfolio: each program through one of gpu-to-llvm "
                           "alone, after convert-scf-to-cf, after func.func(gpu-async-region), "
                           "before the async runtime lowering, after gpu-kernel-outlining, "
                           "and gpu-lower-to-nvvm-pipeline, those the tool has)")


def _program_arguments(g: Group) -> None:
    g.add_argument("--seed", type=int, default=None, metavar="S",
                   help="Hypothesis seed: the same seed draws the same programs (default: "
                   "a random one per run, printed at the start and recorded in the results; "
                   "0 with CI=true, derandomized as Hypothesis's ci profile, unless "
                   "HYPOTHESIS_PROFILE=nightly)")
    g.add_argument("--max-ops", type=int, default=8, metavar="N",
                   help="ops per function, at most")
    g.add_argument("--linear-tokens", action="store_true",
                   help="each token used once, as gpu-async-region produces")
    g.add_argument("--cf-tokens", action="store_true",
                   help="tokens that cross control flow (scf.if yielding a token, scf.for "
                   "carrying one in iter_args) in every program, not only in those whose "
                   "swarm subset has them (upstream's token-as-event defect)")
    g.add_argument("--alloc-spaces", action="store_true",
                   help="gpu.alloc and memref.alloc in memory space 1 possible in every "
                   "program, not only in those whose swarm subset has them (19 and 22 "
                   "emit invalid IR for such an async gpu.alloc)")
    g.add_argument("--no-swarm", action="store_true",
                   help="draw every program under one configuration, the generator before "
                   "issue 40 (no views, async.execute, calls, cf branches...; --cf-tokens "
                   "and --alloc-spaces then opt in) (default: swarm testing, each program "
                   "draws its own subset of every construct, recorded in its features)")
    g.add_argument("--supported", type=int, metavar="VERSION",
                   help="generate only what upstream gpu-to-llvm of this LLVM version "
                   "lowers (16, 19, 22...), to tell 'breaks' from 'rejects': no host code "
                   "judged from its text, one dependency per op, ... (default: none, "
                   "everything the generator knows)")
    g.add_argument("--db", metavar="DIR|redis://HOST:PORT/N",
                   help="Hypothesis example database, a directory or a Redis database "
                   "(shared by a cluster's workers): counterexamples found are "
                   "saved there and replayed first by the next campaign with the same "
                   "settings (default: none; with HYPOTHESIS_PROFILE=nightly "
                   "$GPU_ALLOC_VERIFY_DB or .hypothesis/nightly)")


def _size_arguments(g: Group) -> None:
    g.add_argument("--max-examples", type=int, default=200, metavar="N",
                   help="programs to generate and judge")
    g.add_argument("--time-budget", type=positive(float), metavar="SEC",
                   help="stop generating after SEC seconds (this invocation's); the "
                   "pending batch is judged, found violations shrunk, campaign-end and the "
                   "report written (default: none, --max-examples alone ends the search)")
    g.add_argument("--resume", action="store_true",
                   help="continue the latest campaign of --results FILE that has no "
                   "campaign-end (killed or interrupted): same id, seed, lowerings, pipeline, "
                   "runtime, generator settings and max-examples, recorded programs skipped; "
                   "--report, --junitxml, --json, -j, --batch-size and the other options it "
                   "was started with come back unless given again")
    g.add_argument("-j", "--jobs", type=jobs, default=0, metavar="N",
                   help="worker processes judging each batch, 0 for one per core this "
                   "process may use (generation and shrinking stay in the campaign process)")
    g.add_argument("--batch-size", type=positive(int), default=100, metavar="N",
                   help="programs lowered per batch (one mlir-opt process); a kill loses at "
                   "most the batch in flight (default: %(default)s)")
    g.add_argument("--no-shrink", action="store_true", help="report first examples unshrunk")


def _output_arguments(g: Group) -> None:
    g.add_argument("--results", metavar="FILE", help="append JSONL results here (one "
                   "fsynced line per program: a killed campaign keeps what it finished) "
                   "(default: DIR/results.jsonl with --report DIR, else none)")
    g.add_argument("--report", metavar="DIR", help="write an HTML report into DIR "
                   "(default: none; `gpu-alloc-verify report` renders one later)")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="also print every shrunk counterexample and every unknown reason "
                   "in full (default: one screen; --json, JUnit and the report have all)")


def _cluster_arguments(g: Group) -> None:
    """What `verify.campaign.cluster_options` reads (it imports neither
    Hypothesis nor Dask to parse them)."""
    g.add_argument("--cluster", metavar="ADDRESS",
                   help="run the campaign on Dask distributed: tcp://HOST:PORT of a running "
                   "scheduler, or local:N for N local worker processes; shards (seeds x "
                   "lowerings x pipelines x configurations) run as tasks, this process "
                   "writes the results (needs the [cluster] extra) (default: none, the "
                   "campaign runs in this process)")
    g.add_argument("--shards", type=int, metavar="K",
                   help="split --max-examples over K seeded searches (shard k draws its "
                   "share from the search seeded by --seed and k): the programs drawn "
                   "depend on --seed, --shards and --max-examples only, so a local run "
                   "and a --cluster run with the same three draw the same programs; with "
                   "--cluster, K seeds per (lowering, pipeline, configuration), each a "
                   "task (default: 1; with --cluster one per 100 examples, at most 64, "
                   "whatever the workers)")
    g.add_argument("--shard-pipeline", action="append", metavar="P",
                   help="with --cluster: shard over these pipelines, repeatable "
                   "(default: --pipeline; in-process xdsl lowerings ignore pipelines)")
    g.add_argument("--shard-config", action="append", metavar="SPEC",
                   help="with --cluster: one generator configuration per use, e.g. "
                   "'max_ops=12,linear_tokens' or 'supported=19' (default: the one "
                   "--max-ops, --linear-tokens and --supported give)")
