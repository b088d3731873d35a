"""From parsed arguments to what a command judges with: the invariants
selected, the check options, the lowerings resolved (a bad spec or pipeline
is a usage error here, not a verdict on every program)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants
from gpu_alloc_verify.verify.invariants.witness import TruthPolicy
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import default_spec, resolve
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.verdicts import InvariantId


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


def lowerings(args: argparse.Namespace, specs: Sequence[str] | None = None) -> list[Lowering]:
    """The lowerings of --lowering (or `specs`), the default one said on stderr."""
    specs = list(specs if specs is not None else args.lowering or [])
    if not specs:
        spec, why = default_spec()
        print(f"lowering: {spec} ({why})", file=sys.stderr)
        specs = [spec]
    return [resolve_lowering(s, args) for s in dict.fromkeys(specs)]


def resolve_lowering(spec: str, args: argparse.Namespace) -> Lowering:
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
