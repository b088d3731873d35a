"""`lowerings` and `invariants`: what this machine can run, what is checked."""

from __future__ import annotations

import argparse
import sys

from gpu_alloc_verify.verify.invariants.pipeline import active_invariants
from gpu_alloc_verify.verify.lowerings.registry import available_specs
from gpu_alloc_verify.verify.model.verdicts import INVARIANTS


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
