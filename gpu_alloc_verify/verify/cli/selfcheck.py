"""`selfcheck`: the analysis fuzzed against execution on mutated lowered code."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import UsageError


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
