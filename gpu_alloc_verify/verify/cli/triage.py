"""`triage`: a results file's violations bucketed into root causes."""

from __future__ import annotations

import argparse
import json
import sys


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
