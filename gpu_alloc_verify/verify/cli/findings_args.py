"""`findings`'s arguments: the lowerings and pipelines, the campaigns' size,
output."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.cli.arguments import LOWERING, OUTPUT, SIZE, jobs


def add_arguments(fd: argparse.ArgumentParser) -> None:
    low = fd.add_argument_group(LOWERING)
    low.add_argument("--lowering", action="append", metavar="SPEC",
                     help="repeatable (default: every installed mlir-opt-N)")
    low.add_argument("--pipeline", action="append", metavar="P",
                     help="repeatable: one campaign per (version, pipeline) (default: one "
                     "campaign per version over fuzz's pipeline portfolio)")
    size = fd.add_argument_group(SIZE)
    size.add_argument("--time-budget", type=float, default=900.0, metavar="SEC",
                      help="the whole run's wall-clock budget in seconds: 35%% spread over "
                      "the campaigns (not shrunk: triage reduces), the rest left to triage and "
                      "lit tests; 0 for none (default: %(default)g, the nightly job on 2 cores)")
    size.add_argument("--max-examples", type=int, default=None, metavar="N",
                      help="programs per campaign, at most (default: as many as the time "
                      "budget allows; 300 with --time-budget 0)")
    # Fixed, unlike fuzz's: the catalogue is regenerated and diffed.
    size.add_argument("--seed", type=int, default=0, metavar="S", help="Hypothesis seed")
    size.add_argument("-j", "--jobs", type=jobs, default=0, metavar="N",
                      help="worker processes, 0 for one per core")
    size.add_argument("--reuse-results", action="store_true", help="run no campaign: "
                      "catalogue the campaigns --results FILE holds already")
    out = fd.add_argument_group(OUTPUT)
    out.add_argument("-o", "--output", default="FINDINGS.md", metavar="FILE.md",
                     help="the catalogue to write")
    out.add_argument("--results", metavar="FILE", help="the campaigns' results file "
                     "(default: findings.jsonl beside the output, appended to)")
    out.add_argument("--lit", metavar="DIR", help="lit tests (default: findings-lit/ beside "
                     "the output)")
