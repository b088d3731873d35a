"""Memory for the extractor: stack slots (`llvm.alloca`, `llvm.store`,
`llvm.load`) forwarded per path within a function, and struct fields
(`llvm.insertvalue` / `llvm.extractvalue`).  A slot whose address escapes
is no longer followed, and its content escapes with it."""

from __future__ import annotations

from typing import cast

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import Call
from gpu_alloc_verify.verify.extract.layout import gep_offset, size_align
from gpu_alloc_verify.verify.extract.state import WalkerState, int_width
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_tuple, source_loc, type_text, where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import conj, ite, lit, neg
from gpu_alloc_verify.verify.model.values import as_value, leaves, literal, may_be_handle

_DYNAMIC = -2147483648  # `rawConstantIndices`: this index is an operand


# A struct value: position -> its field's term, or what the fields under a
# position not set are ("undef": never set, "data": no handle in them, e.g.
# a root's argument, "unknown"); () is the whole struct.
_UNTRACKED: dict[tuple[int, ...], object] = {(): "unknown"}


def _is_slot(m: WalkerState, term: smt.ExprRef) -> bool:
    s = literal(term)
    return s is not None and (s in m.slots or s in m.derived)


def size_of(value: IRValue) -> int | None:
    sa = size_align(type_text(value))
    return None if sa is None else sa[0]


class Memory(WalkerState):
    """Stack slots and struct fields: where a handle may be put and read back.

    A slot holds cells (byte offset -> content and size).  A store through a
    pointer into it (the slot, or a `getelementptr` of it with constant
    indices) replaces the cell at the same bytes and makes any cell it
    partly overlaps unknown; one at an offset not known lets the slot go
    (its content escapes, and it is not followed from then on)."""

    def slot_targets(self, ptr: smt.ArithRef
                     ) -> tuple[list[tuple[smt.BoolRef, int, int | None]], bool]:
        """(condition, slot, byte offset) for each tracked slot `ptr` may
        point into, and whether it may also point elsewhere."""
        out: list[tuple[smt.BoolRef, int, int | None]] = []
        elsewhere = False
        for leaf in leaves(ptr):
            s = literal(leaf)
            base, off = (s, 0) if s in self.slots else self.derived.get(s, (None, None)) \
                if s is not None else (None, None)
            if base is not None and base not in self.escaped_slots:
                out.append((fold.eq(ptr, s), base, off))  # type: ignore[arg-type]
            else:
                elsewhere = True
        return out, elsewhere

    def memory(self, op: IROp, guard: smt.BoolRef) -> bool:
        """Stores and loads on stack slots; False to treat it as a host access."""
        is_store = op_name(op) == "llvm.store"
        ptr = self.val(op.operands[1] if is_store else op.operands[0])
        targets, elsewhere = self.slot_targets(ptr)
        if not targets:
            if is_store:
                value = self.val(op.operands[0])
                self.escape(value, guard, lambda: f"stored through a pointer the analysis "
                            f"does not track at {where(op)}", source_loc(op))
                self.escape_slot(value, guard, lambda: f"stored at {where(op)}", source_loc(op))
            if source_loc(op) is not None:
                return False
            if not is_store:
                res = op.results[0]
                why = lambda: f"llvm.load at {where(op)} through a pointer the "  # noqa: E731
                "analysis does not track"
                self.define(res, self.opaque_result(res, why, True), guard)
                if type_text(res) == "i1":
                    self.define_cond(res, self.new_branch(op), guard)
            return True
        if is_store:
            value = self.val(op.operands[0])
            size = size_of(op.operands[0])
            self.escape_slot(value, guard, lambda: f"stored at {where(op)}", source_loc(op))
            for c, s, off in targets:
                self.store_cell(s, off, size, value, conj(guard, c), op)
            if elsewhere:
                self.escape(value, conj(guard, neg(fold.disj(c for c, _, _ in targets))),
                            "stored through a pointer the analysis does not track",
                            source_loc(op))
            return True
        res = op.results[0]
        size = size_of(res)
        why = lambda: f"llvm.load at {where(op)} through a pointer the analysis "  # noqa: E731
        "does not track"
        term = self.opaque_result(res, why, True) if elsewhere else None
        for c, s, off in reversed(targets):
            cell = self.load_cell(s, off, size, res, op)
            term = cell if term is None else ite(c, cell, term)  # type: ignore[assignment]
        self.define(res, term, guard)  # type: ignore[arg-type]
        if type_text(res) == "i1" and self.tainted(term):  # type: ignore[arg-type]
            self.define_cond(res, self.new_branch(op), guard)
        return True

    def store_cell(self, slot: int, off: int | None, size: int | None, value: smt.ExprRef,
                   cond: smt.BoolRef, op: IROp) -> None:
        if off is None or size is None:
            # Which bytes change is not known: the slot is not followed further.
            self.escape_slot(lit(slot), cond, lambda: f"written at an unknown offset at "
                             f"{where(op)}", source_loc(op))
            self.escape(as_value(value), cond,
                        lambda: f"stored at an unknown offset at {where(op)}", source_loc(op))
            return
        cells = self.mem.setdefault(slot, {})
        for o, (t, n) in list(cells.items()):
            if (o, n) != (off, size) and o < off + size and off < o + n:
                # Partly overwritten: what it holds now is not followed.
                cells[o] = (ite(cond, self.unknown_like(t, op), t), n)
        old = cells.get(off)
        w = fold.width_of(value)
        if old is None:
            before: smt.ExprRef = lit(0) if w is None else self.unknown_bits(
                w, lambda: f"a slot read before {where(op)} stores to it")
        else:
            before = self.coerce(old[0], w, lambda: f"a slot stored to at {where(op)}")
        cells[off] = (ite(cond, value, before), size)

    def unknown_like(self, term: smt.ExprRef, op: IROp) -> smt.ExprRef:
        why = lambda: f"a slot partly overwritten at {where(op)}"  # noqa: E731
        w = fold.width_of(term)
        return self.unknown(why) if w is None else self.unknown_bits(w, why)

    def load_cell(self, slot: int, off: int | None, size: int | None, res: IRValue,
                  op: IROp) -> smt.ExprRef:
        why = lambda: f"llvm.load at {where(op)} of a slot's bytes not followed"  # noqa: E731
        if off is None or size is None:
            return self.opaque_result(res, why, True)
        cells = self.mem.get(slot, {})
        cell = cells.get(off)
        if cell is not None and (cell[1] == size or cell[1] > size
                                 and fold.width_of(cell[0]) is not None
                                 and int_width(res) is not None):
            return self.coerce(cell[0], int_width(res), why)  # a wider one: its low bits
        if any(o < off + size and off < o + n for o, (_, n) in cells.items()):
            return self.opaque_result(res, why, True)
        if slot in self.global_slots.values():
            # A global not stored to on this walk: what another function put there.
            return self.opaque_result(res, lambda: f"llvm.load at {where(op)} of a global "
                                      "no store of this function reached", True)
        return self.fresh_for(res)  # never stored

    def global_slot(self, name: str) -> int | None:
        """The slot standing for global `name` if it may hold a pointer."""
        if name not in self.pointer_globals:
            return None
        slot = self.global_slots.get(name)
        if slot is None:
            slot = literal(self.fresh())
            assert slot is not None
            self.global_slots[name] = slot
            self.slots.add(slot)
        return slot

    def enter_root(self) -> None:
        """A root function starts: globals hold what other code put there."""
        for slot in self.global_slots.values():
            self.mem.pop(slot, None)
            self.escaped_slots.discard(slot)

    def globals_escape(self, guard: smt.BoolRef, where_: str, let_go: bool) -> None:
        """The handles in globals reach code the analysis does not see (a
        root's return, an external call); `let_go`: that code may also
        change them, so they are not followed from here on.  At the return
        of the module's only root an internal global is read by nothing."""
        for name, slot in self.global_slots.items():
            if slot in self.escaped_slots or (not let_go and name in self.private_globals):
                continue
            if let_go:
                self.escape_slot(lit(slot), guard, where_, None)
                continue
            for content, _ in self.mem.get(slot, {}).values():
                self.escape(as_value(content), guard, f"left in a global {where_}", None)

    def gep(self, op: IROp, guard: smt.BoolRef) -> bool:
        """A `getelementptr` of a pointer into a tracked slot: a pointer to the
        same slot at the offset its constant indices give (not known for
        others).  False when its base is not such a pointer."""
        base = self.val(op.operands[0])
        s = literal(base)
        if s is None or (s not in self.slots and s not in self.derived):
            if len(op.operands) == 1 and self.constant_offset(op) == 0:
                self.define(op.results[0], base, guard)  # `p[0]`: p itself
                return True
            return False
        slot, off = (s, 0) if s in self.slots else self.derived[s]
        raw = int_tuple(attr_of(op, "rawConstantIndices")) or ()
        dynamic = iter(op.operands[1:])
        indices: list[int | None] = []
        for i in raw:
            if i != _DYNAMIC:
                indices.append(i)
                continue
            # An index the op lacks reads as None: `val` gives it a stand-in.
            v = fold.value_of(self.val(cast(IRValue, next(dynamic, None))))
            w = int_width(op.operands[1]) if len(op.operands) > 1 else None
            indices.append(None if v is None or w is None else fold.signed(v, w))
        elem = attr_of(op, "elem_type")
        extra = gep_offset(str(getattr(elem, "type", elem)), indices) if elem is not None \
            else None
        at = None if off is None or extra is None else off + extra
        if at == 0:
            self.define(op.results[0], lit(slot), guard)
            return True
        key = (slot, at if at is not None else ("?", id(op), self.fresh_count))
        ptr = self.gep_ptrs.get(key)
        if ptr is None:
            ptr = self.gep_ptrs[key] = self.fresh()
            self.derived[literal(ptr)] = (slot, at)  # type: ignore[index]
        self.define(op.results[0], ptr, guard)
        return True

    def constant_offset(self, op: IROp) -> int | None:
        """The byte offset of a `getelementptr` whose indices are all
        constants, None otherwise."""
        raw = int_tuple(attr_of(op, "rawConstantIndices"))
        if raw is None or any(i == _DYNAMIC for i in raw):
            return None
        elem = attr_of(op, "elem_type")
        if elem is None:
            return None
        return gep_offset(str(getattr(elem, "type", elem)), list(raw))

    def insert_value(self, op: IROp, guard: smt.BoolRef) -> None:
        if len(op.operands) != 2:
            self.not_modelled(op, guard, "llvm.insertvalue")
            return
        container, value = op.operands
        entries = self.structs.get(container, _UNTRACKED)
        term = self.val(value)
        inner = self.structs.get(value)
        if len(entries) > 1 or may_be_handle(term) or _is_slot(self, term) or (
                inner is not None and len(inner) > 1):
            # A field worth following (a memref descriptor's are not): its
            # position is read only then.
            pos = int_tuple(attr_of(op, "position"))
            if pos is None:
                self.not_modelled(op, guard, "llvm.insertvalue")
                return
            n = len(pos)
            entries = {k: v for k, v in entries.items() if k[:n] != pos or len(k) < n}
            if inner is not None:  # a struct in a struct: its fields nest under `pos`
                entries.update({(*pos, *k): v for k, v in inner.items()})
            entries[pos] = term
        self.structs[op.results[0]] = entries
        self.define(op.results[0], self.fresh(), guard)

    def extract_value(self, op: IROp, guard: smt.BoolRef) -> None:
        entries = self.structs.get(op.operands[0], _UNTRACKED)
        res = op.results[0]
        if len(entries) == 1 and entries[()] in ("undef", "data"):  # the common case
            self.define(res, self.fresh_for(res), guard)
            return
        pos = int_tuple(attr_of(op, "position")) if len(entries) > 1 else ()
        if pos is None:
            pos = ()
        n = len(pos)
        # What is known of the positions under `pos`: a struct of its own.
        below = {k[n:]: v for k, v in entries.items() if k[:n] == pos and len(k) > n}
        kind = next((v for k, v in sorted(entries.items(), key=lambda e: -len(e[0]))
                     if isinstance(v, str) and k == pos[:len(k)]), "unknown")
        found = entries.get(pos) if n else None
        if below or isinstance(found, str):
            self.structs[res] = {(): found if isinstance(found, str) else kind, **below}
        if found is not None and not isinstance(found, str):
            self.define(res, found, guard)
        elif (found if isinstance(found, str) else kind) in ("undef", "data"):
            self.define(res, self.fresh_for(res), guard)  # never set, or holds no handle
        else:
            self.define(res, self.opaque_result(
                res, lambda: f"llvm.extractvalue at {where(op)} of a struct the analysis "
                "did not build", True), guard)

    # -- calls ---------------------------------------------------------------


# What `memref.copy` lowers to: an intrinsic when both layouts are contiguous,
# else the C runner utility `memrefCopy` (it neither makes nor takes handles).
HOST_COPY_OPS = frozenset({"llvm.intr.memcpy", "llvm.intr.memmove", "llvm.intr.memcpy.inline"})
HOST_COPY_FUNCS = frozenset({"memrefCopy"})


def host_copy(m: WalkerState, op: IROp, guard: smt.BoolRef) -> None:
    """A host copy between buffers with a source op's location: one point in
    host order that reads one buffer and writes another (async-order pairs
    it with the source's `memref.copy`).  Slots it is given escape: the
    bytes, a handle among them, may be copied anywhere."""
    m.escape_operands(op, guard, lambda: f"copied by {op_name(op)} at {where(op)}")
    m.facts.calls.append(Call(len(m.facts.calls), m.func, "host.store", (), guard,
                              source_loc(op), iters=m.iters, sites=m.sites()))
