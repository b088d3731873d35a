"""A comparable, printable form of `extract()`'s facts, and the two readers compared on them."""

from __future__ import annotations

import dataclasses
from typing import Any

from gpu_alloc_verify.verify.extract.calls import LoweredFacts, extract
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered


def _plain(x: Any) -> Any:
    """`x` as nested tuples of text and numbers: Z3 terms by their
    s-expression (structural equality), dataclasses field by field (public
    fields only), dictionaries and sets in a fixed order."""
    if hasattr(x, "sexpr"):
        return x.sexpr()
    if callable(x) and not isinstance(x, type):  # a reason written on demand
        return x()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, *((f.name, _plain(getattr(x, f.name)))
                                    for f in dataclasses.fields(x) if not f.name.startswith("_")))
    if isinstance(x, dict):
        return tuple(sorted(((_plain(k), _plain(v)) for k, v in x.items()), key=repr))
    if isinstance(x, (set, frozenset)):
        return tuple(sorted((_plain(v) for v in x), key=repr))
    if isinstance(x, (list, tuple)):
        return tuple(_plain(v) for v in x)
    return x


def facts_signature(facts: LoweredFacts) -> dict[str, Any]:
    """Every fact `extract` draws (every public field of `LoweredFacts`, so a
    new kind of fact is compared too) as text."""
    return {f.name: _plain(getattr(facts, f.name))
            for f in dataclasses.fields(facts) if not f.name.startswith("_")}


def fast_reader_agrees(text: str, arg_names: dict[str, list[str]]) -> bool:
    """Whether `verify.ir.fastparse` reads `text` (True: `extract` then draws the
    same facts from its module as from xDSL's parse, else AssertionError) or
    declines it (False: `Unsupported` from the reader, or from an attribute
    `extract` asks for, which the pipeline then reads from xDSL's parse).
    xDSL's parse comes first: text it cannot read raises
    `verify.ir.lowered_ir.LoweredParseError`."""
    expected = facts_signature(extract(parse_lowered(text), arg_names))
    try:
        got = facts_signature(extract(fastparse.parse_module(text), arg_names))
    except fastparse.Unsupported:
        return False
    assert got == expected, f"the fast reader reads it differently:\n{text}"
    return True
