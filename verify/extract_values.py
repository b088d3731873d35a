"""What a lowered value may be, as the extractor records it.

Three kinds of integer terms stand for values:
- handles: `HANDLE_BASE + n`, one per executed `mgpuStreamCreate` /
  `mgpuEventCreate`;
- distinct values: negative literals for values that are provably not a
  handle (a pointer `mgpuMemAlloc` returned, a stack slot, a caller's
  argument);
- unknown values: Z3 integer variables named `?n`, for pointer values the
  analysis cannot follow (a load through a pointer it does not track, the
  result of an op it does not model).  Any of them may be any handle.  A
  checker proves `holds` for every value they may take, and reports a
  violation only when it happens whatever they are (see
  `verify.invariants.common`).
"""

from __future__ import annotations

import z3

from verify import fold

HANDLE_BASE = 1 << 40
UNKNOWN_PREFIX = "?"
# Escape flags: "!dN" (the code the handle escaped to destroys it), "!uN" (uses it).
ESCAPE_PREFIX = "!"


def is_unknown_var(e: z3.ExprRef) -> bool:
    return (z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED
            and str(e.decl().name())[:1] in (UNKNOWN_PREFIX, ESCAPE_PREFIX))


def unknown_vars(term: z3.ExprRef) -> list[z3.ExprRef]:
    """The unknown values and escape flags `term` mentions."""
    if fold.value_of(term) is not None or fold.truth(term) is not None:
        return []
    found: dict[int, z3.ExprRef] = {}
    seen: set[int] = set()
    stack = [term]
    while stack:
        e = stack.pop()
        key = e.get_id()
        if key in seen:
            continue
        seen.add(key)
        if is_unknown_var(e):
            found[key] = e
        else:
            stack.extend(e.children())
    return list(found.values())


# By AST id; the term is kept alive with its answer so that Z3 cannot reuse its id.
_may_cache: dict[int, tuple[z3.ExprRef, bool]] = {}


def may_be_handle(term: z3.ExprRef) -> bool:
    """Could this value be a stream or event handle?  (A handle literal or an
    unknown value occurs in it.)"""
    v = fold.value_of(term)
    if v is not None:
        return v >= HANDLE_BASE
    if z3.is_int_value(term):
        return term.as_long() >= HANDLE_BASE  # type: ignore[attr-defined, no-any-return]
    key = term.get_id()
    known = _may_cache.get(key)
    if known is not None:
        return known[1]
    answer = False
    stack = [term]
    seen: set[int] = set()
    while stack and not answer:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_int_value(e):
            answer = e.as_long() >= HANDLE_BASE  # type: ignore[attr-defined]
        elif is_unknown_var(e):
            answer = True
        else:
            stack.extend(e.children())
    if len(_may_cache) > 100_000:
        _may_cache.clear()
    _may_cache[key] = (term, answer)
    return answer


def leaves(term: z3.ExprRef) -> list[z3.ExprRef]:
    """The values an `If` tree may stand for."""
    if fold.value_of(term) is not None:
        return [term]
    out: list[z3.ExprRef] = []
    stack = [term]
    while stack:
        e = stack.pop()
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            stack.extend(e.children()[1:])
        else:
            out.append(e)
    return out


def literal(term: z3.ExprRef) -> int | None:
    v = fold.value_of(term)
    if v is not None:
        return v
    if z3.is_int_value(term):
        return term.as_long()  # type: ignore[attr-defined, no-any-return]
    return None
