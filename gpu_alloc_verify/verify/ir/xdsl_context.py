"""The xDSL contexts the harness parses with, each built once.

Both allow unregistered ops (a lowering's or a user's ops xDSL does not
know are kept as generic ones, `verify.ir.lowered_ir.op_name` names them).

- `all_dialects`: every xDSL dialect registered; lowered modules
  (`verify.ir.parse.parse`'s "lowered" side).
- `gpu_unregistered`: every dialect but gpu, whose ops then read the same
  whatever their generic spelling in a given MLIR version; source text
  (`verify.ir.parse.parse`'s "source" side).
"""

from __future__ import annotations

from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects import get_all_dialects


def _context(without: frozenset[str]) -> Context:
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        if name not in without:
            ctx.register_dialect(name, factory)
    return ctx


@lru_cache(maxsize=1)
def all_dialects() -> Context:
    """Every xDSL dialect registered, unknown ops allowed: for lowered modules."""
    return _context(frozenset())


@lru_cache(maxsize=1)
def gpu_unregistered() -> Context:
    """Every xDSL dialect but gpu registered, unknown ops allowed: for source text."""
    return _context(frozenset({"gpu"}))
