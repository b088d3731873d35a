"""Integers for the extractor: bit-vectors of their type's width, with
LLVM's semantics (wrap-around arithmetic, signless values that a compare
reads signed or unsigned, exact `trunc` / `zext` / `sext`), and the border
to pointers: `ptrtoint` gives a pointer's address, an unknown 64-bit value
(one per pointer), which `inttoptr` turns back into that pointer only when
it is that address whole; a constant becomes a pointer no handle equals."""

from __future__ import annotations

import re

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import Words, words
from gpu_alloc_verify.verify.extract.state import WalkerState, int_width
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_value, where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IROp
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import ite, lit
from gpu_alloc_verify.verify.model.values import (
    HANDLE_BASE,
    as_value,
    leaves,
    literal,
    may_be_handle,
)

PTR_BITS = 64
_ADDR_RE = re.compile(r"(?<![\w.!?|])[?]\d+a\d+(?![\w!?])")
ARITH = {"llvm.add": "add", "arith.addi": "add", "llvm.sub": "sub", "arith.subi": "sub",
         "llvm.mul": "mul", "arith.muli": "mul", "llvm.and": "and", "arith.andi": "and",
         "llvm.or": "or", "arith.ori": "or", "llvm.xor": "xor", "arith.xori": "xor",
         "llvm.shl": "shl", "arith.shli": "shl", "llvm.lshr": "lshr", "arith.shrui": "lshr",
         "llvm.ashr": "ashr", "arith.shrsi": "ashr"}
_SIGNED_EXT = {"llvm.sext", "arith.extsi", "arith.index_cast"}
# Casts between integers that keep the bits (a width change is no cast of theirs).
_SAME_BITS = {"builtin.unrealized_conversion_cast", "llvm.bitcast"}


class Integers(WalkerState):
    """Integer values, and their border to pointers."""

    # -- the border ----------------------------------------------------------
    def address(self, ptr: smt.ExprRef) -> smt.ArithRef:
        """`ptrtoint` at 64 bits: null is 0, a pointer made from an integer
        is that integer, any other pointer an unknown address of its own."""
        split = fold.ite_parts(ptr)
        if split is not None:
            c, then, orelse = split
            return ite(c, self.address(then), self.address(orelse))
        v = fold.value_of(ptr)
        if v is not None and 0 <= v < HANDLE_BASE:
            return fold.bv(v, PTR_BITS)  # type: ignore[return-value]
        key: object = v if v is not None else ("id", ptr.get_id())
        term = self.addrs.get(key)
        if term is None:
            slot = v is not None and (v in self.slots or v in self.derived)
            term = self.unknown_bits(PTR_BITS, "address of a pointer",  # type: ignore[assignment]
                                     address=slot or may_be_handle(ptr))
            self.addrs[key] = term  # type: ignore[assignment]
            if slot:
                self.addr_slots[str(term)] = v  # type: ignore[assignment]
            self.addr_ptr[term.get_id()] = ptr  # type: ignore[attr-defined]
        return term  # type: ignore[return-value]

    def pointer(self, x: smt.ExprRef, why: Words) -> smt.ArithRef:
        """`inttoptr`: the pointer whose whole address `x` is, the constant
        as a pointer, else a stand-in, or an unknown pointer where the
        address of a handle or slot went into `x` (such a slot escapes)."""
        split = fold.ite_parts(x)
        if split is not None:
            c, then, orelse = split
            return ite(c, self.pointer(then, why), self.pointer(orelse, why))
        w = fold.width_of(x)
        v = fold.value_of(x)
        if v is not None:
            return lit(v & ((1 << PTR_BITS) - 1))
        if w == PTR_BITS:
            back = self.addr_ptr.get(x.get_id())
            if back is None:
                back = self.address_moved_back(x)
            if back is not None:
                return back  # type: ignore[return-value]
        if not may_be_handle(x):
            return self.fresh()
        for name in dict.fromkeys(_ADDR_RE.findall(x.sexpr())):
            slot = self.addr_slots.get(name)
            if slot is not None:  # its address is followed no further: it escapes
                self.escape_slot(lit(slot), self.true,
                                 lambda: f"through an integer ({words(why)})", None)
        return self.unknown(why)

    def address_moved_back(self, x: smt.ExprRef) -> smt.ExprRef | None:
        """The pointer whose address `x` is after arithmetic that cancels
        out (`add 8` then `sub 8`, `add 0`): `x` mentions one address and
        equals it whatever it is (Z3's simplifier reduces the difference to
        0).  None otherwise."""
        names = list(dict.fromkeys(_ADDR_RE.findall(x.sexpr())))
        if len(names) != 1:
            return None
        for term in self.addrs.values():
            if str(term) == names[0]:
                diff = smt.simplify(x - term)  # type: ignore[operator]
                if fold.value_of(diff) == 0 or str(diff) == "0":
                    return self.addr_ptr.get(term.get_id())
                return None
        return None

    def coerce(self, term: smt.ExprRef, width: int | None, why: Words) -> smt.ArithRef:
        """`term` as a value of `width` bits (None: a pointer or other
        non-integer): `ptrtoint` / `inttoptr` across the border, the low bits
        of a wider integer, an unknown one for a narrower."""
        have = fold.width_of(term)
        if have == width:
            return term  # type: ignore[return-value]
        if width is None:
            if have is not None and have < PTR_BITS:
                term = fold.resize(term, PTR_BITS, False)  # type: ignore[arg-type]
            return self.pointer(term, why)
        if have is None:
            term = self.address(term)
            have = PTR_BITS
        if have == width:
            return term  # type: ignore[return-value]
        if have > width:
            return fold.resize(term, width, False)  # type: ignore[arg-type, return-value]
        return self.unknown_bits(width, why)

    # -- ops -----------------------------------------------------------------
    def int_cast(self, op: IROp, guard: smt.BoolRef) -> None:
        """A cast whose source or result is an integer."""
        src, res = op.operands[0], op.results[0]
        name = op_name(op)
        ws, wr = int_width(src), int_width(res)
        value = self.val(src)
        why = lambda: f"{name} at {where(op)}"  # noqa: E731
        if ws is None or wr is None:
            self.define(res, self.coerce(value, wr, why), guard)
            return
        if ws == wr:
            out: smt.ExprRef = value
        elif name in _SAME_BITS:
            out = self.unknown_bits(wr, why)
        else:
            out = fold.resize(value, wr, name in _SIGNED_EXT)  # type: ignore[arg-type]
        if ws == wr == 1 and src in self.conds:
            self.define_cond(res, self.conds[src], guard)
        self.define(res, out, guard)  # type: ignore[arg-type]

    def arith(self, op: IROp, guard: smt.BoolRef, kind: str) -> None:
        a, b = self.val(op.operands[0]), self.val(op.operands[1])
        w = fold.width_of(a)
        res = op.results[0]
        if w is None or fold.width_of(b) != w:
            self.not_modelled(op, guard, op_name(op))  # vectors, pointers
            return
        if w == 1 and kind in ("and", "or", "xor"):
            ca, cb = self.cond(op.operands[0]), self.cond(op.operands[1])
            c = fold.conj(ca, cb) if kind == "and" else fold.disj((ca, cb)) if kind == "or" \
                else fold.ite(ca, fold.neg(cb), cb)
            self.define_bool(res, c, guard)
            return
        out = fold.binop(kind, a, b)  # type: ignore[arg-type]
        self.define(res, as_value(out) if out is not None else self.unknown_bits(
            w, lambda: f"a poison {op_name(op)} at {where(op)}"), guard)

    def compare(self, op: IROp, guard: smt.BoolRef) -> None:
        a, b = self.val(op.operands[0]), self.val(op.operands[1])
        pred = int_value(attr_of(op, "predicate"))
        res = op.results[0]
        c: smt.BoolRef | None = None
        if pred is None or not 0 <= pred <= 9:
            pass
        elif fold.width_of(a) is None or fold.width_of(b) is None:
            c = self.pointer_compare(pred, a, b)
        elif pred in (0, 1) and self.is_address(a) and self.is_address(b):
            c = self.pointer_compare(pred, self.pointer(a, "?"), self.pointer(b, "?"))
        elif not self.tainted(a) and not self.tainted(b):
            c = fold.compare(pred, a, b)  # type: ignore[arg-type]
        # Otherwise a value the analysis does not follow decides: either way.
        self.define_bool(res, c if c is not None else self.new_branch(op), guard)

    def is_address(self, x: smt.ExprRef) -> bool:
        """Is every value `x` may be null or the whole address of a pointer?"""
        return all(fold.value_of(leaf) == 0 or leaf.get_id() in self.addr_ptr
                   for leaf in leaves(x))

    def pointer_compare(self, pred: int, a: smt.ExprRef, b: smt.ExprRef) -> smt.BoolRef | None:
        """`icmp eq/ne` of pointers (an ordering of them is not modelled)."""
        if pred not in (0, 1):
            return None
        la, lb = literal(a), literal(b)
        stand_in = any(x is not None and x in self.facts.unknown_values for x in (la, lb))
        handle = any(x is not None and x >= HANDLE_BASE for x in (la, lb))
        if a is b or not stand_in or handle:
            # A stand-in is never a handle, but two stand-ins may be equal.
            return fold.eq(a, b) if pred == 0 else fold.ne(a, b)
        return None
