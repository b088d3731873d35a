"""`bench`: per-stage cost and throughput (verify.campaign.bench)."""

from __future__ import annotations

import argparse

from gpu_alloc_verify.verify.model.errors import UsageError


def cmd_bench(args: argparse.Namespace) -> int:
    try:
        from gpu_alloc_verify.verify.campaign.bench import run_bench
    except ImportError as e:
        raise UsageError(f"bench is not available in this build: {e}") from e
    return run_bench(args)
