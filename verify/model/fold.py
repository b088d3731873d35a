"""Z3 terms built with literal folding done in Python.

Most terms the extractor and the checkers build are literals: handle
numbers, the null pointer, the `true` guard of straight-line code.  Each
operation of Z3's Python API costs microseconds (argument coercion,
reference counting), and a checked program needs thousands of them.  The
constructors here decide on Python values whatever they can and build a Z3
term only for what stays symbolic, so the solver sees the same formulas,
only smaller.

Literals are interned: `lit(n)` returns one object per value, tagged with
its value, so recognising a literal is an attribute read.

Terms built here also carry `_taint`: whether a value the analysis could not
follow (`verify.model.values`: an unknown `?n` or an escape flag) occurs
in them, and `_choosable` on an equality with such a value (or a
disjunction of them): a condition a counterexample cannot rely on, since
that value may as well be something else.  Terms built elsewhere have no
tag, and are asked by their text.  Conjunctions
remember their conjuncts (`atoms`), which lets the schedule check decide
which guarded constraints a query's path condition switches on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import z3

TRUE: z3.BoolRef = z3.BoolVal(True)
FALSE: z3.BoolRef = z3.BoolVal(False)
TRUE._lit = True  # type: ignore[attr-defined]
FALSE._lit = False  # type: ignore[attr-defined]
_ints: dict[int, z3.ArithRef] = {}


def lit(value: int) -> z3.ArithRef:
    """The one interned integer literal for `value`."""
    term = _ints.get(value)
    if term is None:
        term = _ints[value] = z3.IntVal(value)
        term._lit = value  # type: ignore[attr-defined]
    return term


_bvs: dict[tuple[int, int], z3.BitVecRef] = {}


def bv(value: int, width: int) -> z3.BitVecRef:
    """The one interned `width`-bit literal for `value` (taken modulo 2**width):
    `value_of` gives its unsigned value, `width_of` its width."""
    value &= (1 << width) - 1
    term = _bvs.get((value, width))
    if term is None:
        term = _bvs[(value, width)] = z3.BitVecVal(value, width)
        term._lit = value  # type: ignore[attr-defined]
        term._width = width  # type: ignore[attr-defined]
    return term


def width_of(term: object) -> int | None:
    """The width of a bit-vector term built here or by the extractor (None
    for an integer term: a pointer, a handle)."""
    return getattr(term, "_width", None)


def signed(value: int, width: int) -> int:
    """The two's complement reading of an unsigned `width`-bit value."""
    return value - (1 << width) if value >> (width - 1) & 1 else value


def boolean(value: bool) -> z3.BoolRef:
    return TRUE if value else FALSE


def value_of(term: object) -> int | None:
    """The integer an interned literal stands for; None for anything else
    (a symbolic term, or a literal built outside this module)."""
    value = getattr(term, "_lit", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def truth(term: object) -> bool | None:
    """True/False for the interned boolean literals, None otherwise."""
    value = getattr(term, "_lit", None)
    return value if isinstance(value, bool) else None


def taint(*terms: object) -> bool | None:
    """Does a value the analysis could not follow occur in any of `terms`?
    None when some term carries no tag."""
    out = False
    for t in terms:
        if getattr(t, "_lit", None) is not None:
            continue
        v = getattr(t, "_taint", None)
        if v is None:
            return None
        out = out or v
    return out


def tag(term: z3.ExprRef, *parts: object, choosable: bool = False) -> z3.ExprRef:
    t = taint(*parts)
    if t is not None:
        term._taint = t  # type: ignore[attr-defined]
    if t:
        # Its operands, for `values.unknown_vars` to walk instead of printing
        # the term (a millisecond for a large formula).
        term._kids = parts  # type: ignore[attr-defined]
    if choosable:
        term._choosable = True  # type: ignore[attr-defined]
    return term


def eq(a: z3.ArithRef, b: z3.ArithRef | int) -> z3.BoolRef:
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
    if vb is not None and getattr(a, "_cond", None) is not None and not unknown_only(a):
        # `If(c, x, y) == k` is `If(c, x == k, y == k)`: with literal leaves
        # it folds to `c`, `not c` or a literal, which paths decide at once.
        return _bool_ite(a._cond, eq(a._then, other), eq(a._else, other))  # type: ignore[attr-defined]
    ua, ub = unknown_only(a), unknown_only(other)
    choosable = (ua or ub) and (ua or va is not None) and (ub or vb is not None)
    return tag(_equal(a, other), a, other, choosable=choosable)  # type: ignore[return-value]


def _equal(a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    """`a == b` through Z3's C API (z3's __eq__ coerces in Python); terms of
    two sorts fall back to it, and to its error."""
    ref = a.ctx.ref()
    x, y = a.as_ast(), b.as_ast()
    if a.ctx is b.ctx and z3.Z3_is_eq_sort(ref, z3.Z3_get_sort(ref, x), z3.Z3_get_sort(ref, y)):
        return z3.BoolRef(z3.Z3_mk_eq(ref, x, y), a.ctx)
    return a == b  # type: ignore[return-value]


def _bool_ite(c: z3.BoolRef, then: z3.BoolRef, orelse: z3.BoolRef) -> z3.BoolRef:
    t, e = truth(then), truth(orelse)
    if t is not None and e is not None:
        return c if t and not e else neg(c) if e and not t else boolean(t)
    if e is False:
        return conj(c, then)
    if t is False:
        return conj(neg(c), orelse)
    return disj((conj(c, then), conj(neg(c), orelse)))


def ne(a: z3.ArithRef, b: z3.ArithRef | int) -> z3.BoolRef:
    return neg(eq(a, b))


def branch(name: str) -> z3.BoolRef:
    """A branch variable, tagged so that `path_of` can read it without Z3."""
    term = z3.Bool(name)
    term._branch = (name, True)  # type: ignore[attr-defined]
    term._taint = False  # type: ignore[attr-defined]
    return term


def neg(a: z3.BoolRef) -> z3.BoolRef:
    t = truth(a)
    if t is not None:
        return boolean(not t)
    term = tag(z3.BoolRef(z3.Z3_mk_not(a.ctx.ref(), a.as_ast()), a.ctx), a)
    branch_of = getattr(a, "_branch", None)
    if branch_of is not None:
        term._branch = (branch_of[0], not branch_of[1])  # type: ignore[attr-defined]
    return term


def atoms(term: z3.BoolRef) -> frozenset[int]:
    """Ids of the conjuncts of a guard (empty for `true`)."""
    if term is TRUE:
        return frozenset()
    known = getattr(term, "_atoms", None)
    if known is not None:
        return known  # type: ignore[no-any-return]
    return frozenset((term.get_id(),))


def _connective(make: Callable[..., z3.Ast], kept: list[z3.BoolRef]) -> z3.BoolRef:
    """`And`/`Or` of Boolean terms through Z3's C API: z3.And coerces and
    sort-checks every argument in Python, the larger part of a judgement's
    cost; these are Booleans of one context already."""
    ctx = kept[0].ctx
    args = (z3.Ast * len(kept))(*(k.as_ast() for k in kept))
    return z3.BoolRef(make(ctx.ref(), len(kept), args), ctx)


def conj(*parts: z3.BoolRef) -> z3.BoolRef:
    kept: list[z3.BoolRef] = []
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
    term = tag(_connective(z3.Z3_mk_and, kept), *kept)
    term._atoms = frozenset().union(*(atoms(k) for k in kept))  # type: ignore[attr-defined]
    term._parts = tuple(a for k in kept for a in getattr(k, "_parts", (k,)))  # type: ignore[attr-defined]
    return term


def path_of(term: z3.BoolRef) -> dict[str, bool] | bool | None:
    """Decide, without Z3, a conjunction of branch variables and their
    negations: the one assignment of its variables it requires (sat),
    False when it contradicts itself (unsat), None when `term` is
    anything else."""
    t = truth(term)
    if t is not None:
        return {} if t else False
    need: dict[str, bool] = {}
    for part in getattr(term, "_parts", (term,)):
        tag = getattr(part, "_branch", None)
        if tag is None:
            return None
        name, value = tag
        if need.setdefault(name, value) != value:
            return False
    return dict(sorted(need.items()))


def disj(parts: Iterable[z3.BoolRef]) -> z3.BoolRef:
    kept: list[z3.BoolRef] = []
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
    return tag(_connective(z3.Z3_mk_or, kept), *kept,  # type: ignore[return-value]
                choosable=all(getattr(k, "_choosable", False) for k in kept))


def ite(c: z3.BoolRef, then: z3.ExprRef, orelse: z3.ExprRef) -> z3.ExprRef:
    t = truth(c)
    if t is not None:
        return then if t else orelse
    if then is orelse:
        return then
    # `If(c, If(c, a, b), d)` is `If(c, a, d)`: merges of merges stay small.
    if getattr(then, "_cond", None) is c:
        then = then._then  # type: ignore[attr-defined]
    if getattr(orelse, "_cond", None) is c:
        orelse = orelse._else  # type: ignore[attr-defined]
    if then is orelse:
        return then
    term = tag(z3.If(c, then, orelse), c, then, orelse)
    term._cond, term._then, term._else = c, then, orelse  # type: ignore[attr-defined]
    w = width_of(then)
    if w is not None:
        term._width = w  # type: ignore[attr-defined]
    if unknown_only(then) and unknown_only(orelse):
        term._unknown_leaves = True  # type: ignore[attr-defined]
    return term


def unknown_only(term: object) -> bool:
    """Is every value `term` may stand for one the analysis could not follow?"""
    return getattr(term, "_unknown", None) is not None or getattr(term, "_unknown_leaves", False)


def one_of(value: z3.ArithRef, handles: Iterable[int]) -> z3.BoolRef:
    """`value` is one of `handles`."""
    v = value_of(value)
    if v is not None:
        return boolean(v in set(handles))
    return disj(eq(value, h) for h in handles)


# -- bit-vectors: LLVM's integer semantics (wrap-around, signless) ------------

_BINOPS: dict[str, tuple[Callable[[int, int, int], int | None],
                         Callable[[z3.BitVecRef, z3.BitVecRef], z3.BitVecRef]]] = {
    "add": (lambda a, b, w: a + b, lambda a, b: a + b),
    "sub": (lambda a, b, w: a - b, lambda a, b: a - b),
    "mul": (lambda a, b, w: a * b, lambda a, b: a * b),
    "and": (lambda a, b, w: a & b, lambda a, b: a & b),
    "or": (lambda a, b, w: a | b, lambda a, b: a | b),
    "xor": (lambda a, b, w: a ^ b, lambda a, b: a ^ b),
    # A shift by the width or more is poison in LLVM: not folded (None).
    "shl": (lambda a, b, w: a << b if b < w else None, lambda a, b: a << b),
    "lshr": (lambda a, b, w: a >> b if b < w else None, z3.LShR),
    "ashr": (lambda a, b, w: signed(a, w) >> b if b < w else None, lambda a, b: a >> b),
}
BINOPS = frozenset(_BINOPS)


def binop(op: str, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef | None:
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


def _bv_tag(term: z3.ExprRef, width: int, *parts: object) -> z3.BitVecRef:
    term = tag(term, *parts)
    term._width = width  # type: ignore[attr-defined]
    return term  # type: ignore[return-value]


# Predicates numbered as `llvm.icmp` and `arith.cmpi` number them.
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def compare(pred: int, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
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
             "ult": z3.ULT(a, b), "ule": z3.ULE(a, b), "ugt": z3.UGT(a, b),
             "uge": z3.UGE(a, b)}[name]
    return tag(plain, a, b)  # type: ignore[return-value]


def resize(a: z3.BitVecRef, width: int, sign: bool) -> z3.BitVecRef:
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
        return _bv_tag(z3.Extract(width - 1, 0, a), width, a)
    ext = z3.SignExt if sign else z3.ZeroExt
    return _bv_tag(ext(width - w, a), width, a)


def bool_to_bv(c: z3.BoolRef) -> z3.BitVecRef:
    """An i1 value from a condition."""
    return ite(c, bv(1, 1), bv(0, 1))  # type: ignore[return-value]
