"""Z3 terms built with literal folding done in Python, and what the
analysis knows of each.

Most terms the extractor and the checkers build are literals: handle
numbers, the null pointer, the `true` guard of straight-line code.  Each
operation of Z3's Python API costs microseconds (argument coercion,
reference counting), and a checked program needs thousands of them.  The
constructors here decide on Python values whatever they can and build a Z3
term only for what stays symbolic, so the solver sees the same formulas,
only smaller.

Every term built here is a `Tagged` term: a Z3 term of one of this module's
own classes (`TBool`, `TInt`, `TBits`, and `TIntNum`/`TBitsNum` for
literals), which Z3 takes as its own, with one typed field `tags` (`Tags`):
- `lit`, `width`: the value of an interned literal, the width of a
  bit-vector;
- `taint`: whether a value the analysis could not follow
  (`verify.model.values`: an unknown `?n` or an escape flag) occurs in it;
- `choosable`, on an equality with such a value (or a disjunction of them):
  a condition a counterexample cannot rely on, since that value may as well
  be something else;
- `atoms`/`parts` of a conjunction, which let the schedule check decide
  which guarded constraints a query's path condition switches on; the
  branch variable a literal of a path stands for; the parts of an `If`.
A term Z3 built from them (`z3.And(...)`, an operator) is a plain Z3 term:
`tags_of` gives None for it, so nothing is read from it that it does not
carry; the readers here treat it as unknown (its taint is asked by its
text).  Nothing is ever set on a Z3 term that is not a `Tagged` one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeVar, overload

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.smt import capi


@dataclass(slots=True, eq=False)
class Tags:
    """What the analysis knows of one term beyond its formula."""

    taint: bool | None = None  # None: not known; ask the term's text
    lit: int | bool | None = None  # the value of an interned literal
    width: int | None = None  # a bit-vector's width
    kids: tuple[object, ...] | None = None  # operands, kept for a tainted term
    choosable: bool = False
    ite: tuple[smt.BoolRef, smt.ExprRef, smt.ExprRef] | None = None  # If(c, then, else)
    unknown_leaves: bool = False  # every leaf of the If is an unknown value
    atoms: frozenset[int] | None = None  # conjunct ids of a conjunction
    parts: tuple[smt.BoolRef, ...] | None = None  # conjuncts of a conjunction
    branch: tuple[str, bool] | None = None  # a branch variable, or its negation
    unknown: str | None = None  # the name of an unknown value or escape flag
    # Memos of `verify.model.values`, on the term they describe.
    unknown_vars: tuple[smt.ExprRef, ...] | None = None
    may_be_handle: bool | None = None


class _TagSlot:
    """The one field a tagged term adds to its Z3 class.  Held in the term's
    own `__dict__` (Z3's classes have one), not in a slot, so that a term
    fold has just built can take its tagged class in place (`_adopt`)."""

    tags: Tags


class TBool(_TagSlot, smt.BoolRef):
    pass


class TInt(_TagSlot, smt.ArithRef):
    pass


class TIntNum(_TagSlot, smt.IntNumRef):
    pass


class TBits(_TagSlot, smt.BitVecRef):
    pass


class TBitsNum(_TagSlot, smt.BitVecNumRef):
    pass


Tagged = TBool | TInt | TIntNum | TBits | TBitsNum
_TAGGED: frozenset[type] = frozenset((TBool, TInt, TIntNum, TBits, TBitsNum))
_CLASS_OF: dict[type, type] = {
    smt.BoolRef: TBool, smt.ArithRef: TInt, smt.IntNumRef: TIntNum,
    smt.BitVecRef: TBits, smt.BitVecNumRef: TBitsNum,
    **{c: c for c in _TAGGED},
}


# The class of an `If` by the class of its branches (never a numeral).
_ITE_CLASS: dict[type, type] = {
    smt.BoolRef: TBool, TBool: TBool, smt.ArithRef: TInt, TInt: TInt, smt.IntNumRef: TInt,
    TIntNum: TInt, smt.BitVecRef: TBits, TBits: TBits, smt.BitVecNumRef: TBits, TBitsNum: TBits,
}


# A term keeps its class through tagging: a Boolean stays a `BoolRef`.
_T = TypeVar("_T", bound=smt.ExprRef)


def tags_of(term: object) -> Tags | None:
    """The tags of a term built here; None for any other term.  (The
    accessors below inline it: they run millions of times a campaign.)"""
    return term.tags if isinstance(term, _TagSlot) else None


def tagged(term: _T, tags: Tags) -> _T:
    """`term` as a `Tagged` term carrying `tags` (a new Python object for the
    same Z3 term; `term` itself is left as it is)."""
    cls = _CLASS_OF.get(type(term))
    if cls is None:
        raise TypeError(f"no tagged class for a {type(term).__name__}")
    made: Any = cls(term.ast, term.ctx)
    made.tags = tags
    out: _T = made
    return out


def _adopt(term: _T, tags: Tags) -> _T:
    """`term`, which fold has just built and nobody else holds, made a tagged
    term in place: a new class and its tags, no second Python object (that
    would cost a Z3 reference count and an allocation per term)."""
    cls = _CLASS_OF.get(type(term))
    if cls is None:
        raise TypeError(f"no tagged class for a {type(term).__name__}")
    term.__class__ = cls
    term.tags = tags  # type: ignore[attr-defined]
    return term


def _make_bool(ast: smt.Ast, ctx: smt.Context, tags: Tags) -> TBool:
    out = TBool(ast, ctx)
    out.tags = tags
    return out


TRUE: smt.BoolRef = _make_bool(
    smt.BoolVal(True).ast, smt.main_ctx(), Tags(taint=False, lit=True))
FALSE: smt.BoolRef = _make_bool(
    smt.BoolVal(False).ast, smt.main_ctx(), Tags(taint=False, lit=False))
_ints: dict[int, smt.ArithRef] = {}


def lit(value: int) -> smt.ArithRef:
    """The one interned integer literal for `value`."""
    term = _ints.get(value)
    if term is None:
        term = _ints[value] = _adopt(smt.IntVal(value), Tags(taint=False, lit=value))
    return term


_bvs: dict[tuple[int, int], smt.BitVecRef] = {}


def bv(value: int, width: int) -> smt.BitVecRef:
    """The one interned `width`-bit literal for `value` (taken modulo 2**width):
    `value_of` gives its unsigned value, `width_of` its width."""
    value &= (1 << width) - 1
    term = _bvs.get((value, width))
    if term is None:
        term = _bvs[(value, width)] = _adopt(
            smt.BitVecVal(value, width), Tags(taint=False, lit=value, width=width))
    return term


def bits_var(name: str, width: int) -> smt.BitVecRef:
    """A `width`-bit variable the analysis follows (an integer argument)."""
    return _adopt(smt.BitVec(name, width), Tags(taint=False, width=width))


def width_of(term: object) -> int | None:
    """The width of a bit-vector term built here or by the extractor (None
    for an integer term: a pointer, a handle)."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    return None if tags is None else tags.width


def signed(value: int, width: int) -> int:
    """The two's complement reading of an unsigned `width`-bit value."""
    return value - (1 << width) if value >> (width - 1) & 1 else value


def boolean(value: bool) -> smt.BoolRef:
    return TRUE if value else FALSE


def value_of(term: object) -> int | None:
    """The integer an interned literal stands for; None for anything else
    (a symbolic term, or a literal built outside this module)."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    value = None if tags is None else tags.lit
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def truth(term: object) -> bool | None:
    """True/False for the interned boolean literals, None otherwise."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    value = None if tags is None else tags.lit
    return value if isinstance(value, bool) else None


def taint(*terms: object) -> bool | None:
    """Does a value the analysis could not follow occur in any of `terms`?
    None when some term carries no taint tag."""
    out = False
    for t in terms:
        tags = t.tags if isinstance(t, _TagSlot) else None
        if tags is None:
            return None
        if tags.lit is not None:
            continue
        if tags.taint is None:
            return None
        out = out or tags.taint
    return out


def with_taint(term: _T, value: bool) -> _T:
    """`term` tagged as tainted or not, its other tags kept."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    if tags is None:
        return tagged(term, Tags(taint=value))
    if tags.taint is value:
        return term
    return tagged(term, replace(tags, taint=value, unknown_vars=None, may_be_handle=None))


def tag(term: _T, *parts: object, choosable: bool = False) -> _T:
    """`term`, built by Z3 from `parts`, as a tagged term: tainted when a part is."""
    return tagged(term, _tags_from(parts, choosable))


def _tags_from(parts: tuple[object, ...], choosable: bool = False) -> Tags:
    t = taint(*parts)
    # A tainted term keeps its operands, for `values.unknown_vars` to walk
    # instead of printing the term (a millisecond for a large formula).
    return Tags(taint=t, kids=parts if t else None, choosable=choosable)


def choosable(term: object) -> bool:
    """Is `term` a condition no counterexample can rely on (see module doc)?"""
    tags = term.tags if isinstance(term, _TagSlot) else None
    return tags is not None and tags.choosable


def ite_parts(term: object) -> tuple[smt.BoolRef, smt.ExprRef, smt.ExprRef] | None:
    """`(c, then, else)` of an `If` built by `ite`; None for anything else."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    return None if tags is None else tags.ite


def conjuncts(term: smt.BoolRef) -> tuple[smt.BoolRef, ...]:
    """The conjuncts of a conjunction built by `conj`; `(term,)` otherwise."""
    tags = term.tags if isinstance(term, _TagSlot) else None
    parts = None if tags is None else tags.parts
    return (term,) if parts is None else parts


def eq(a: smt.ExprRef, b: smt.ExprRef | int) -> smt.BoolRef:
    w = width_of(a)
    if isinstance(b, int) and w is not None:
        if not 0 <= b < 1 << w:
            return FALSE  # a bit-vector is never a handle nor a stand-in
        b = bv(b, w)
    vb = b if isinstance(b, int) else value_of(b)
    va = value_of(a)
    if va is not None and vb is not None:
        return boolean(va == vb)
    if a is b:
        return TRUE
    other = lit(b) if isinstance(b, int) else b
    split = ite_parts(a) if vb is not None else None
    if split is not None and not unknown_only(a):
        # `If(c, x, y) == k` is `If(c, x == k, y == k)`: with literal leaves
        # it folds to `c`, `not c` or a literal, which paths decide at once.
        c, then, orelse = split
        return _bool_ite(c, eq(then, other), eq(orelse, other))
    ua, ub = unknown_only(a), unknown_only(other)
    choosable = bool((ua or ub) and (ua or va is not None) and (ub or vb is not None))
    return _equal(a, other, _tags_from((a, other), choosable))


def _equal(a: smt.ExprRef, b: smt.ExprRef, tags: Tags) -> smt.BoolRef:
    """`a == b` through Z3's C API (z3's __eq__ coerces in Python); terms of
    two sorts fall back to it, and to its error."""
    ref = a.ctx.ref()
    x, y = a.as_ast(), b.as_ast()
    if a.ctx is b.ctx and capi.Z3_is_eq_sort(
            ref, capi.Z3_get_sort(ref, x), capi.Z3_get_sort(ref, y)):
        return _make_bool(capi.Z3_mk_eq(ref, x, y), a.ctx, tags)
    return _adopt(a == b, tags)


def _bool_ite(c: smt.BoolRef, then: smt.BoolRef, orelse: smt.BoolRef) -> smt.BoolRef:
    t, e = truth(then), truth(orelse)
    if t is not None and e is not None:
        return c if t and not e else neg(c) if e and not t else boolean(t)
    if e is False:
        return conj(c, then)
    if t is False:
        return conj(neg(c), orelse)
    return disj((conj(c, then), conj(neg(c), orelse)))


def ne(a: smt.ExprRef, b: smt.ExprRef | int) -> smt.BoolRef:
    return neg(eq(a, b))


def branch(name: str) -> smt.BoolRef:
    """A branch variable, tagged so that `path_of` can read it without Z3."""
    return _adopt(smt.Bool(name), Tags(taint=False, branch=(name, True)))


def neg(a: smt.BoolRef) -> smt.BoolRef:
    t = truth(a)
    if t is not None:
        return boolean(not t)
    tags = _tags_from((a,))
    of = a.tags if isinstance(a, _TagSlot) else None
    if of is not None and of.branch is not None:
        tags.branch = (of.branch[0], not of.branch[1])
    return _make_bool(capi.Z3_mk_not(a.ctx.ref(), a.as_ast()), a.ctx, tags)


def atoms(term: smt.BoolRef) -> frozenset[int]:
    """Ids of the conjuncts of a guard (empty for `true`)."""
    if term is TRUE:
        return frozenset()
    tags = term.tags if isinstance(term, _TagSlot) else None
    if tags is not None and tags.atoms is not None:
        return tags.atoms
    return frozenset((term.get_id(),))


def _connective(make: Callable[..., smt.Ast], kept: list[smt.BoolRef], tags: Tags) -> smt.BoolRef:
    """`And`/`Or` of Boolean terms through Z3's C API: z3.And coerces and
    sort-checks every argument in Python, the larger part of a judgement's
    cost; these are Booleans of one context already."""
    ctx = kept[0].ctx
    args = (smt.Ast * len(kept))(*(k.as_ast() for k in kept))
    return _make_bool(make(ctx.ref(), len(kept), args), ctx, tags)


def conj(*parts: smt.BoolRef) -> smt.BoolRef:
    kept: list[smt.BoolRef] = []
    for p in parts:
        t = truth(p)
        if t is False:
            return FALSE
        if t is None and not any(p is k for k in kept):
            kept.append(p)
    if not kept:
        return TRUE
    if len(kept) == 1:
        return kept[0]
    tags = _tags_from(tuple(kept))
    tags.atoms = frozenset().union(*(atoms(k) for k in kept))
    tags.parts = tuple(a for k in kept for a in conjuncts(k))
    return _connective(capi.Z3_mk_and, kept, tags)


def path_of(term: smt.BoolRef) -> dict[str, bool] | bool | None:
    """Decide, without Z3, a conjunction of branch variables and their
    negations: the one assignment of its variables it requires (sat),
    False when it contradicts itself (unsat), None when `term` is
    anything else."""
    t = truth(term)
    if t is not None:
        return {} if t else False
    need: dict[str, bool] = {}
    for part in conjuncts(term):
        tags = part.tags if isinstance(part, _TagSlot) else None
        if tags is None or tags.branch is None:
            return None
        name, value = tags.branch
        if need.setdefault(name, value) != value:
            return False
    return dict(sorted(need.items()))


def disj(parts: Iterable[smt.BoolRef]) -> smt.BoolRef:
    kept: list[smt.BoolRef] = []
    for p in parts:
        t = truth(p)
        if t is True:
            return TRUE
        if t is None and not any(p is k for k in kept):
            kept.append(p)
    if not kept:
        return FALSE
    if len(kept) == 1:
        return kept[0]
    return _connective(capi.Z3_mk_or, kept,
                       _tags_from(tuple(kept), all(choosable(k) for k in kept)))


# The class of an `If` is its branches' (an `If` of two numerals is no numeral).
@overload
def ite(c: smt.BoolRef, then: smt.BoolRef, orelse: smt.BoolRef) -> smt.BoolRef: ...
@overload
def ite(c: smt.BoolRef, then: smt.BitVecRef, orelse: smt.BitVecRef) -> smt.BitVecRef: ...
@overload
def ite(c: smt.BoolRef, then: smt.ArithRef, orelse: smt.ArithRef) -> smt.ArithRef: ...
@overload
def ite(c: smt.BoolRef, then: smt.ExprRef, orelse: smt.ExprRef) -> smt.ExprRef: ...
def ite(c: smt.BoolRef, then: smt.ExprRef, orelse: smt.ExprRef) -> smt.ExprRef:
    t = truth(c)
    if t is not None:
        return then if t else orelse
    if then is orelse:
        return then
    # `If(c, If(c, a, b), d)` is `If(c, a, d)`: merges of merges stay small.
    inner = ite_parts(then)
    if inner is not None and inner[0] is c:
        then = inner[1]
    inner = ite_parts(orelse)
    if inner is not None and inner[0] is c:
        orelse = inner[2]
    if then is orelse:
        return then
    tags = _tags_from((c, then, orelse))
    tags.ite = (c, then, orelse)
    tags.width = width_of(then)
    tags.unknown_leaves = unknown_only(then) and unknown_only(orelse)
    return _mk_ite(c, then, orelse, tags)


def _mk_ite(c: smt.BoolRef, then: smt.ExprRef, orelse: smt.ExprRef, tags: Tags) -> smt.ExprRef:
    """`If(c, then, orelse)` through Z3's C API where both branches have one
    sort (z3.If coerces and sort-checks in Python, most of an `ite`'s cost);
    through z3.If otherwise, and to its coercions or its error."""
    cls = _ITE_CLASS.get(type(then))
    ctx = c.ctx
    if cls is not None and then.ctx is ctx and orelse.ctx is ctx:
        ref = ctx.ref()
        t, e = then.as_ast(), orelse.as_ast()
        if capi.Z3_is_eq_sort(ref, capi.Z3_get_sort(ref, t), capi.Z3_get_sort(ref, e)):
            out: Any = cls(capi.Z3_mk_ite(ref, c.as_ast(), t, e), ctx)
            out.tags = tags
            made: smt.ExprRef = out
            return made
    return _adopt(smt.If(c, then, orelse), tags)


def unknown_only(term: object) -> bool:
    """Is every value `term` may stand for one the analysis could not follow?"""
    tags = term.tags if isinstance(term, _TagSlot) else None
    return tags is not None and (tags.unknown is not None or tags.unknown_leaves)


def one_of(value: smt.ArithRef, handles: Iterable[int]) -> smt.BoolRef:
    """`value` is one of `handles`."""
    v = value_of(value)
    if v is not None:
        return boolean(v in set(handles))
    return disj(eq(value, h) for h in handles)


# -- bit-vectors: LLVM's integer semantics (wrap-around, signless) ------------

_BINOPS: dict[str, tuple[Callable[[int, int, int], int | None],
                         Callable[[smt.BitVecRef, smt.BitVecRef], smt.BitVecRef]]] = {
    "add": (lambda a, b, w: a + b, lambda a, b: a + b),
    "sub": (lambda a, b, w: a - b, lambda a, b: a - b),
    "mul": (lambda a, b, w: a * b, lambda a, b: a * b),
    "and": (lambda a, b, w: a & b, lambda a, b: a & b),
    "or": (lambda a, b, w: a | b, lambda a, b: a | b),
    "xor": (lambda a, b, w: a ^ b, lambda a, b: a ^ b),
    # A shift by the width or more is poison in LLVM: not folded (None).
    "shl": (lambda a, b, w: a << b if b < w else None, lambda a, b: a << b),
    "lshr": (lambda a, b, w: a >> b if b < w else None, smt.LShR),
    "ashr": (lambda a, b, w: signed(a, w) >> b if b < w else None, lambda a, b: a >> b),
}
BINOPS = frozenset(_BINOPS)


def binop(op: str, a: smt.BitVecRef, b: smt.BitVecRef) -> smt.BitVecRef | None:
    """`a op b` on bit-vectors of one width, wrapping around; None for a
    poison result of literals."""
    w = width_of(a)
    assert w is not None and w == width_of(b), (op, a, b)
    on_ints, on_terms = _BINOPS[op]
    va, vb = value_of(a), value_of(b)
    if va is not None and vb is not None:
        out = on_ints(va, vb, w)
        return None if out is None else bv(out, w)
    return _bv_tag(on_terms(a, b), w, a, b)


def _bv_tag(term: smt.BitVecRef, width: int, *parts: object) -> smt.BitVecRef:
    tags = _tags_from(parts)
    tags.width = width
    return _adopt(term, tags)


# Predicates numbered as `llvm.icmp` and `arith.cmpi` number them.
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def compare(pred: int, a: smt.BitVecRef, b: smt.BitVecRef) -> smt.BoolRef:
    """`icmp pred a, b` on bit-vectors of one width (predicate 0..9)."""
    if pred == 0:
        return eq(a, b)
    if pred == 1:
        return ne(a, b)
    name = _PREDICATES[pred]
    w = width_of(a)
    assert w is not None
    va, vb = value_of(a), value_of(b)
    if va is not None and vb is not None:
        if name[0] == "s":
            va, vb = signed(va, w), signed(vb, w)
        less = {"lt": va < vb, "le": va <= vb, "gt": va > vb, "ge": va >= vb}
        return boolean(less[name[1:]])
    plain = {"slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
             "ult": smt.ULT(a, b), "ule": smt.ULE(a, b), "ugt": smt.UGT(a, b),
             "uge": smt.UGE(a, b)}[name]
    return _adopt(plain, _tags_from((a, b)))


def resize(a: smt.BitVecRef, width: int, sign: bool) -> smt.BitVecRef:
    """`a` truncated to `width` bits, or extended (with its sign bit when
    `sign`, else with zeros)."""
    w = width_of(a)
    assert w is not None
    if w == width:
        return a
    v = value_of(a)
    if v is not None:
        return bv(signed(v, w) if sign and width > w else v, width)
    if width < w:
        return _bv_tag(smt.Extract(width - 1, 0, a), width, a)
    ext = smt.SignExt if sign else smt.ZeroExt
    return _bv_tag(ext(width - w, a), width, a)


def bool_to_bv(c: smt.BoolRef) -> smt.BitVecRef:
    """An i1 value from a condition."""
    return ite(c, bv(1, 1), bv(0, 1))
