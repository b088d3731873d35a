"""Memory for the extractor: stack slots (`llvm.alloca`, `llvm.store`,
`llvm.load`) forwarded per path within a function, and struct fields
(`llvm.insertvalue` / `llvm.extractvalue`).  A slot whose address escapes
is no longer followed, and its content escapes with it."""

from __future__ import annotations

from typing import Any

import z3

from verify.extract.state import WalkerState
from verify.ir.attrs import attr_of, int_tuple, source_loc, type_text, where
from verify.ir.lowered_ir import op_name
from verify.model import fold
from verify.model.fold import conj, ite, lit, neg
from verify.model.values import leaves, literal, may_be_handle


class Memory(WalkerState):
    """Stack slots and struct fields: where a handle may be put and read back."""

    def slot_targets(self, ptr: z3.ArithRef) -> tuple[list[tuple[z3.BoolRef, int]], bool]:
        """(condition, slot) for each tracked slot `ptr` may be, and whether it
        may also point elsewhere."""
        out: list[tuple[z3.BoolRef, int]] = []
        elsewhere = False
        for leaf in leaves(ptr):
            s = literal(leaf)
            if s is not None and s in self.slots and s not in self.escaped_slots:
                out.append((fold.eq(ptr, s), s))
            else:
                elsewhere = True
        return out, elsewhere

    def memory(self, op: Any, guard: z3.BoolRef) -> bool:
        """Stores and loads on stack slots; False to treat it as a host access."""
        is_store = op_name(op) == "llvm.store"
        ptr = self.val(op.operands[1] if is_store else op.operands[0])
        targets, elsewhere = self.slot_targets(ptr)
        if not targets:
            if is_store:
                value = self.val(op.operands[0])
                self.escape(value, guard, f"stored through a pointer the analysis does "
                            f"not track at {where(op)}", source_loc(op))
                self.escape_slot(value, guard, f"stored at {where(op)}", source_loc(op))
            if source_loc(op) is not None:
                return False
            if not is_store:
                res = op.results[0]
                why = f"llvm.load at {where(op)} through a pointer the analysis " \
                      "does not track"
                self.define(res, self.opaque_result(res, why, True), guard)
                if type_text(res) == "i1":
                    self.define_cond(res, self.new_branch(op), guard)
            return True
        if is_store:
            value = self.val(op.operands[0])
            self.escape_slot(value, guard, f"stored at {where(op)}", source_loc(op))
            for c, s in targets:
                self.mem[s] = ite(conj(guard, c), value, self.mem.get(s, lit(0)))  # type: ignore[assignment]
            if elsewhere:
                self.escape(value, conj(guard, neg(fold.disj(c for c, _ in targets))),
                            "stored through a pointer the analysis does not track",
                            source_loc(op))
            return True
        res = op.results[0]
        other = (self.opaque_result(res, f"llvm.load at {where(op)} through a "
                                    "pointer the analysis does not track", True)
                 if elsewhere else lit(0))
        term = other
        for c, s in reversed(targets):
            term = ite(c, self.mem.get(s, self.fresh()), term)  # type: ignore[assignment]
        self.define(res, term, guard)
        return True

    def insert_value(self, op: Any, guard: z3.BoolRef) -> None:
        if len(op.operands) != 2:
            self.not_modelled(op, guard, "llvm.insertvalue")
            return
        container, value = op.operands
        fields, rest = self.structs.get(container, ({}, "unknown"))
        term = self.val(value)
        if fields or may_be_handle(term):
            # A field worth following (a memref descriptor's are not): its
            # position is read only then.
            pos = int_tuple(attr_of(op, "position"))
            if pos is None:
                self.not_modelled(op, guard, "llvm.insertvalue")
                return
            fields = {**fields, pos: term}
        self.structs[op.results[0]] = (fields, rest)
        self.define(op.results[0], self.fresh(), guard)

    def extract_value(self, op: Any, guard: z3.BoolRef) -> None:
        fields, rest = self.structs.get(op.operands[0], ({}, "unknown"))
        res = op.results[0]
        pos = int_tuple(attr_of(op, "position")) if fields else None
        if pos is not None and pos in fields:
            self.define(res, fields[pos], guard)
        elif rest in ("undef", "data"):
            self.define(res, self.fresh(), guard)  # never set here, or holds no handle
        else:
            self.define(res, self.opaque_result(
                res, lambda: f"llvm.extractvalue at {where(op)} of a struct the analysis "
                "did not build", True), guard)

    # -- calls ---------------------------------------------------------------
