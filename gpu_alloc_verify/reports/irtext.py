"""Record helpers for reports; the line-based reading of MLIR text is
`verify.ir.ir_lines` and, for locations, `verify.ir.locations` (re-exported
here, `loc_id` being `locations.id_on_line`)."""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.verify.ir.ir_lines import (
    Call,
    Residue,
    Source,
    SrcOp,
    parse_calls,
    parse_residue,
    parse_source,
    strip_locs,
)
from gpu_alloc_verify.verify.ir.locations import id_on_line as loc_id
from gpu_alloc_verify.verify.triage.offending import counterexample, marked_calls, roles

__all__ = ["Call", "Residue", "Source", "SrcOp", "counterexample", "loc_id", "marked_ops",
           "parse_calls", "parse_residue", "parse_source", "strip_locs"]

Record = dict[str, Any]


def marked_ops(violation: Record) -> set[str]:
    """Source op ids whose lowered code is the offending code: marked_calls, else source_op."""
    out = set(marked_calls(violation))
    source_op = roles(violation).source_op
    if not out and source_op:
        out.add(source_op)
    return out
