"""A comparable, printable form of `extract()`'s facts."""

from __future__ import annotations

from typing import Any

from verify.extract import LoweredFacts


def facts_signature(facts: LoweredFacts) -> dict[str, Any]:
    """Every fact as text: Z3 terms by their s-expression (structural equality)."""
    return {
        "calls": [
            (c.index, c.func, c.callee, tuple(a.sexpr() for a in c.args), c.guard.sexpr(),
             c.source_op, c.handle, c.iters)
            for c in facts.calls
        ],
        "handles": {h: (k, c.index) for h, (k, c) in facts.handles.items()},
        "residue": [(r.what, r.func, r.source_op, r.guard.sexpr()) for r in facts.residue],
        "notes": list(facts.notes),
        "unknown_values": sorted(facts.unknown_values),
    }
