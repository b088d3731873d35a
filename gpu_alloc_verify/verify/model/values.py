"""What a lowered value may be, as the extractor records it.

A value of an integer type (`iN`, `index`: 64 bits) is a Z3 bit-vector of
its width, with LLVM's wrap-around semantics (`verify.model.fold`).  An
opaque one (the result of an op not modelled, the address a `ptrtoint`
reads) is an unknown bit-vector `?nwN` (`?naN` for the address of a
pointer that may be a handle).  Pointers and everything else are Z3
integers, a kind of their own, which no integer constant ever equals
(`inttoptr` of a constant is that constant, below `HANDLE_BASE`):
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

import re
from typing import cast

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.model import fold

# Above every 64-bit value, so an integer turned into a pointer is never a handle.
HANDLE_BASE = 1 << 64
UNKNOWN_PREFIX = "?"
# Escape flags: "!dN" (the code the handle escaped to destroys it), "!uN" (uses it).
ESCAPE_PREFIX = "!"


# Names in a term's s-expression, read there because walking a Z3 term from
# Python costs a call per node.  Z3's own let-names (`a!1`) follow a letter.
_NAME_RE = re.compile(r"(?<![\w.!?|])([?]\d+(?:[wa]\d+)?|![dus]\d+)(?![\w!?])")
# The unknowns that may be (the address of) a handle: not opaque integers.
_HANDLE_NAME_RE = re.compile(r"(?<![\w.!?|])[?]\d+(?:a\d+)?(?![\w!?])")
_BIG_INT_RE = re.compile(r"(?<![\w.])(?<!- )\d{13,}")  # not a negative stand-in


_unknowns: dict[str, smt.ExprRef] = {}
_UNKNOWNS_MAX = 1 << 16


def as_value(term: smt.ExprRef) -> smt.ArithRef:
    """`term` as the extractor types an SSA value.  Every value is typed as an
    Int term (a pointer, a handle, an index); an integer of a known width is
    really a bit-vector, told apart at run time by fold's width tag.  This is
    where such a term enters, so the static type stays the one every checker
    reads (no run-time conversion: the term is returned as it is)."""
    return cast("smt.ArithRef", term)


def unknown_int(name: str) -> smt.ExprRef:
    """The unknown value `?n` (a pointer), or `?nwW` / `?naW` (a `W`-bit
    integer), tagged for `verify.model.fold`."""
    term = _unknowns.get(name)
    if term is not None:
        return term
    m = re.fullmatch(r"[?]\d+[wa](\d+)", name)
    width = int(m.group(1)) if m else None
    raw = smt.Int(name) if width is None else smt.BitVec(name, width)
    term = fold.tagged(raw, fold.Tags(taint=True, width=width, unknown=name))
    # Names restart with each extraction: made once, a term serves them all.
    if len(_unknowns) < _UNKNOWNS_MAX:
        _unknowns[name] = term
    return term


_flags: dict[str, smt.BoolRef] = {}


def escape_flag(name: str) -> smt.BoolRef:
    """An escape flag `!dN` / `!uN`: a condition no counterexample can fix."""
    known = _flags.get(name)
    if known is not None:
        return known
    term = _flags[name] = fold.tagged(
        smt.Bool(name), fold.Tags(taint=True, unknown=name, choosable=True))
    return term


_source_why: dict[str, str] = {}


def source_unknown(why: str) -> smt.BoolRef:
    """A condition of the source the reader cannot read (`!sN`): like an
    escape flag, no counterexample can fix it; `why` says what it is."""
    name = f"!s{len(_source_why)}"
    _source_why[name] = why
    return escape_flag(name)


def source_unknown_why(name: str) -> str | None:
    return _source_why.get(name)


def unknown_name(term: object) -> str | None:
    """The name of an unknown value or escape flag; None for any other term."""
    tags = fold.tags_of(term)
    return None if tags is None else tags.unknown


def unknown_vars(term: smt.ExprRef) -> list[smt.ExprRef]:
    """The unknown values and escape flags `term` mentions."""
    tags = fold.tags_of(term)
    if tags is not None:
        if tags.taint is False or tags.lit is not None:
            return []
        if tags.unknown is not None:
            return [term]
        # Memoized on the term: printing it is the cost, and the same terms
        # are asked about again by every checker.
        if tags.unknown_vars is not None:
            return list(tags.unknown_vars)
        if tags.kids is not None:
            return _walk_unknowns(term)
    text = term.sexpr()
    if "?" not in text and "!" not in text:
        found: list[smt.ExprRef] = []
    else:
        names = dict.fromkeys(_NAME_RE.findall(text))
        found = [unknown_int(n) if n[0] == UNKNOWN_PREFIX else escape_flag(n) for n in names]
    if tags is not None:
        tags.unknown_vars = tuple(found)
    return found


def _walk_unknowns(root: smt.ExprRef) -> list[smt.ExprRef]:
    """`unknown_vars` of a term `verify.model.fold` built, from its operands'
    (`_kids`), left to right, each once: no printing.  Iterative, as terms
    nest as deep as the programs they come from."""
    stack: list[tuple[fold.Tags, bool]] = [(_tags(root), False)]
    while stack:
        tags, done = stack.pop()
        if tags.unknown_vars is not None:
            continue
        kids = [k for k in tags.kids or () if isinstance(k, smt.ExprRef)]
        if not done:
            stack.append((tags, True))
            for k in reversed(kids):
                kt = fold.tags_of(k)
                if kt is not None and kt.kids is not None and kt.unknown_vars is None:
                    stack.append((kt, False))
            continue
        found: dict[int, smt.ExprRef] = {}
        for k in kids:
            for v in unknown_vars(k):  # memoized or a leaf by now
                found.setdefault(v.get_id(), v)
        tags.unknown_vars = tuple(found.values())
    return list(_tags(root).unknown_vars or ())


def _tags(term: smt.ExprRef) -> fold.Tags:
    tags = fold.tags_of(term)
    assert tags is not None, term
    return tags


def may_be_handle(term: smt.ExprRef) -> bool:
    """Could this value be a stream or event handle?  (A handle literal or an
    unknown value occurs in it.)"""
    v = fold.value_of(term)
    if v is not None:
        return v >= HANDLE_BASE and fold.width_of(term) is None
    tags = fold.tags_of(term)
    if tags is not None and tags.unknown is not None:
        return "w" not in tags.unknown
    known = None if tags is None else tags.may_be_handle
    if known is None:
        text = term.sexpr()
        known = bool("?" in text and _HANDLE_NAME_RE.search(text)) or (
            fold.width_of(term) is None
            and any(int(n) >= HANDLE_BASE for n in _BIG_INT_RE.findall(text)))
        if tags is not None:
            tags.may_be_handle = known
    return known


def leaves(term: smt.ExprRef) -> list[smt.ExprRef]:
    """The values an `If` tree may stand for."""
    if fold.value_of(term) is not None:
        return [term]
    out: list[smt.ExprRef] = []
    stack = [term]
    while stack:
        e = stack.pop()
        if smt.is_app_of(e, smt.Z3_OP_ITE):
            stack.extend(e.children()[1:])
        else:
            out.append(e)
    return out


def literal(term: smt.ExprRef) -> int | None:
    v = fold.value_of(term)
    if v is not None:
        return v
    if fold.tags_of(term) is not None:
        return None  # a symbolic term built by `verify.model.fold` or the extractor
    if smt.is_int_value(term):
        return term.as_long()
    return None
