"""`replay`: re-check the recorded violations of a results file."""

from __future__ import annotations

import argparse
import json

from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.cli.options import check_pipeline
from gpu_alloc_verify.verify.cli.status import exit_status
from gpu_alloc_verify.verify.model.verdicts import Verdict


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
