"""Record helpers for reports; the line-based reading of MLIR text is
`verify.ir.ir_lines` (re-exported here)."""

from __future__ import annotations

from typing import Any

from verify.ir.ir_lines import (
    Call,
    Residue,
    Source,
    SrcOp,
    loc_id,
    parse_calls,
    parse_residue,
    parse_source,
    strip_locs,
)

__all__ = ["Call", "Residue", "Source", "SrcOp", "counterexample", "loc_id", "marked_ops",
           "parse_calls", "parse_residue", "parse_source", "strip_locs"]

Record = dict[str, Any]


def counterexample(violation: Record) -> Record:
    cex = violation.get("counterexample")
    return cex if isinstance(cex, dict) else {}


def marked_ops(violation: Record) -> set[str]:
    """Source op ids whose lowered code is the offending code: marked_calls, else source_op."""
    marked = violation.get("marked_calls")
    if isinstance(marked, str):
        marked = [marked]
    out = {str(m) for m in marked if m} if isinstance(marked, list) else set()
    source_op = counterexample(violation).get("source_op")
    if not out and isinstance(source_op, str) and source_op:
        out.add(source_op)
    return out
