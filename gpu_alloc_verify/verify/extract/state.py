"""The extractor's state and value bookkeeping (see `verify.extract.calls`):
SSA values to terms, kept per path when a definition is walked again;
stand-ins, unknown values, escapes and cuts."""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import (
    ESCAPE,
    Call,
    Cut,
    LoweredFacts,
    Words,
    words,
)
from gpu_alloc_verify.verify.ir.attrs import pointer_like, source_loc, type_text
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IROp, IRRegion, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import ite, lit
from gpu_alloc_verify.verify.model.values import (
    HANDLE_BASE,
    UNKNOWN_PREFIX,
    as_value,
    escape_flag,
    leaves,
    literal,
    may_be_handle,
    unknown_int,
    unknown_vars,
)

_WIDTHS: dict[str, int | None] = {}


def int_width(value: IRValue) -> int | None:
    """The width of an integer-typed value (`index`: 64 bits), None for any
    other type (pointers, structs, tokens, floats)."""
    t = type_text(value)
    w = _WIDTHS.get(t, -1)
    if w == -1:
        w = 64 if t == "index" else int(t[1:]) if t[:1] == "i" and t[1:].isdigit() else None
        _WIDTHS[t] = w
    return w


class WalkerState:
    """What the walk knows so far; `ControlFlow`, `Memory` and
    `verify.extract.calls` add the walking itself."""

    def __init__(self, arg_names: dict[str, list[str]], loop_bound: int,
                 funcs: dict[str, IROp]) -> None:
        self.arg_names = arg_names
        self.loop_bound = loop_bound
        self.funcs = funcs
        self.facts = LoweredFacts()
        self.env: dict[Any, smt.ArithRef] = {}
        self.conds: dict[Any, smt.BoolRef] = {}
        # Struct values (`verify.extract.memory`): position -> the term of the
        # field there, or what the fields under it not set are ("undef",
        # "data": no handle in them, "unknown"); () is the whole struct.
        self.structs: dict[Any, dict[tuple[int, ...], Any]] = {}
        # Stack slot -> its cells: byte offset -> (content, size in bytes).
        self.mem: dict[int, dict[int, tuple[smt.ExprRef, int]]] = {}
        self.slots: set[int] = set()
        # A pointer into a slot (getelementptr): stand-in -> (slot, byte
        # offset, None when not a constant).
        self.derived: dict[int, tuple[int, int | None]] = {}
        self.gep_ptrs: dict[tuple[int, object], smt.ArithRef] = {}
        # `ptrtoint`: the address (an unknown 64-bit value) of each pointer
        # turned into an integer, and back (by the address's term id).
        self.addrs: dict[object, smt.BitVecRef] = {}
        self.addr_ptr: dict[int, smt.ExprRef] = {}
        self.addr_slots: dict[str, int] = {}  # address name -> the slot it is of
        self.fn_ptrs: dict[int, str] = {}  # stand-in of `llvm.mlir.addressof @f` -> f
        # `llvm.mlir.global`s that may hold a pointer (a handle, possibly),
        # followed as slots (`verify.extract.memory`): name -> slot, once used.
        self.pointer_globals: set[str] = set()
        self.global_slots: dict[str, int] = {}
        # Those no code outside the module can name (internal, private)
        # when the module has one root: dead once it returns.
        self.private_globals: set[str] = set()
        self.escaped_slots: set[int] = set()
        # The variables walks made (havoc'd integers, cells, exit rounds,
        # branches on values not followed), in order: a loop summary renames
        # the ones its round made at the exit.
        self.loop_vars: list[smt.ExprRef] = []
        self.fresh_count = 0
        self.next_handle = HANDLE_BASE + 1
        self.func = ""
        self.iters: tuple[int, ...] = ()
        self.inlining: list[str] = []
        # The source location of each call being inlined (innermost last).
        self.call_sites: list[str | None] = []
        # Per function being inlined: each return's guard, values, i1
        # conditions and the struct fields of each value (None: not a struct
        # the walk built).
        self.returns: list[list[tuple[smt.BoolRef, list[smt.ArithRef], list[smt.BoolRef],
                                      list[dict[tuple[int, ...], Any] | None]]]] = []
        self.true = fold.TRUE

    def sites(self) -> tuple[tuple[str | None, str], ...]:
        """The calls being inlined, outermost first (`Call.sites`)."""
        return tuple(zip(self.call_sites, self.inlining, strict=True))

    # -- values ------------------------------------------------------------
    def fresh(self, hint: str = "v") -> smt.ArithRef:
        """A value that is provably not a handle: a distinct negative literal."""
        # Far below any constant a program uses, so a stand-in never equals one.
        self.fresh_count += 1
        value = -(HANDLE_BASE + self.fresh_count)
        self.facts.unknown_values.add(value)
        return lit(value)

    def unknown(self, why: Words) -> smt.ArithRef:
        """A value the analysis cannot follow: it may be any handle."""
        self.fresh_count += 1
        name = f"{UNKNOWN_PREFIX}{self.fresh_count}"
        self.facts.unknowns[name] = why
        return as_value(unknown_int(name))

    def unknown_bits(self, width: int, why: Words, address: bool = False) -> smt.ArithRef:
        """An integer the analysis cannot follow (`?nwW`), or the address of a
        pointer that may be a handle or a slot (`?naW`): never a handle
        itself, whatever its value."""
        self.fresh_count += 1
        name = f"{UNKNOWN_PREFIX}{self.fresh_count}{'a' if address else 'w'}{width}"
        self.facts.unknowns[name] = why
        return as_value(unknown_int(name))

    def fresh_for(self, ssa: IRValue) -> smt.ArithRef:
        """A value of `ssa`'s type that no handle is: an unknown integer of its
        width, or a stand-in."""
        w = int_width(ssa)
        return self.fresh() if w is None else self.unknown_bits(w, "an integer not followed")

    def opaque_result(self, value: IRValue, why: Words, tainted: bool) -> smt.ArithRef:
        """The result of something not modelled: unknown if it may carry a
        handle (pointer-like, from handle operands), else distinct (an
        integer: any value of its width)."""
        w = int_width(value)
        if w is not None:
            return self.unknown_bits(w, why)
        if tainted and pointer_like(value):
            return self.unknown(why)
        return self.fresh()

    def val(self, ssa: IRValue) -> smt.ArithRef:
        term = self.env.get(ssa)
        if term is None:
            c = self.conds.get(ssa)
            term = as_value(fold.bool_to_bv(c)) if c is not None else self.fresh_for(ssa)
            self.env[ssa] = term
        return term

    def define(self, ssa: IRValue, term: smt.ArithRef, guard: smt.BoolRef) -> None:
        # A definition walked again (a loop copy, a second inlining) is kept
        # under its guard: on each path the latest execution's value wins.
        w = int_width(ssa)
        if fold.width_of(term) != w:
            term = self.coerce(term, w, lambda: f"a value of {ssa}")
        old = self.env.get(ssa)
        self.env[ssa] = term if old is None else ite(guard, term, old)

    def define_bool(self, ssa: IRValue, c: smt.BoolRef, guard: smt.BoolRef) -> None:
        """An i1 result known as a condition: its integer value follows."""
        self.define_cond(ssa, c, guard)
        self.env.pop(ssa, None)  # `val` makes it from the (merged) condition

    def tainted(self, term: smt.ExprRef) -> bool:
        """Does a value the analysis could not follow occur in `term`?"""
        t = fold.taint(term)
        return bool(unknown_vars(term)) if t is None else t

    def coerce(self, term: smt.ExprRef, width: int | None, why: Words) -> smt.ArithRef:
        raise NotImplementedError

    def define_cond(self, ssa: IRValue, term: smt.BoolRef, guard: smt.BoolRef) -> None:
        old = self.conds.get(ssa)
        self.conds[ssa] = term if old is None else ite(guard, term, old)

    def new_branch(self, op: IROp) -> smt.BoolRef:
        self.fresh_count += 1
        loc = source_loc(op)
        at = f"@{loc}" if loc else ""
        c = fold.branch(f"{self.func}:{op_name(op)}{at}#{self.fresh_count}")
        self.loop_vars.append(c)  # a round's own, if a loop summary walks it
        return c

    def cond(self, ssa: IRValue) -> smt.BoolRef:
        c = self.conds.get(ssa)
        if c is None:
            term = self.env.get(ssa)
            known = literal(term) if term is not None else None
            if known is not None and known >= 0:
                return fold.boolean(bool(known & 1))
            if fold.width_of(term) is not None and not self.tainted(term):  # type: ignore[arg-type]
                # Not kept: a definition walked again changes the value.
                return fold.eq(fold.resize(term, 1, False), 1)  # type: ignore[arg-type]
            self.fresh_count += 1
            c = fold.branch(f"{self.func}:?{self.fresh_count}")
            self.loop_vars.append(c)
            self.conds[ssa] = c
        return c

    def cut(self, guard: smt.BoolRef, reason: str) -> None:
        if guard is not fold.FALSE:
            self.facts.cuts.append(Cut(guard, f"{reason} (in @{self.func})"))

    def escape(self, value: smt.ArithRef, guard: smt.BoolRef, where: Words,
               source_op: str | None) -> None:
        if guard is fold.FALSE or not may_be_handle(value):
            return
        if fold.width_of(value) is not None:  # an address: the pointer it came from
            value = self.coerce(value, None, where)
            if not may_be_handle(value):
                return
        where = words(where)
        n = len(self.facts.calls)
        flags = (escape_flag(f"!d{n}"), escape_flag(f"!u{n}"))
        self.facts.calls.append(Call(n, self.func, ESCAPE, (value,), guard, source_op,
                                     iters=self.iters, note=where, flags=flags,
                                     sites=self.sites()))

    def escape_operands(self, op: IROp, guard: smt.BoolRef, where: Words) -> bool:
        """Escapes for the operands of `op` that may be handles; True if any."""
        any_handle = False
        for v in op.operands:
            term = self.val(v)
            if fold.width_of(term) is not None:
                if not may_be_handle(term):
                    continue
                term = self.coerce(term, None, where)  # the pointer it is the address of
            if may_be_handle(term):
                any_handle = True
                self.escape(term, guard, where, source_loc(op))
            self.escape_slot(term, guard, where, source_loc(op))
        return any_handle

    def escape_slot(self, term: smt.ArithRef, guard: smt.BoolRef, where: Words,
                    source_op: str | None) -> None:
        """A stack slot whose address leaves what the analysis follows: its
        content escapes with it, and it is not tracked from then on."""
        slot = literal(term)
        if slot is not None and slot in self.derived:
            slot = self.derived[slot][0]
        if slot is None or slot not in self.slots or slot in self.escaped_slots:
            return
        self.escaped_slots.add(slot)
        for content, _ in self.mem.get(slot, {}).values():
            self.escape(as_value(content), guard, lambda: f"in a stack slot {words(where)}",
                        source_op)
            for leaf in leaves(content):  # a slot whose address is in it escapes too
                self.escape_slot(as_value(leaf), guard, where, source_op)

    # -- walking -----------------------------------------------------------

    # -- what the walking classes provide ------------------------------------
    def op(self, op: IROp, guard: smt.BoolRef) -> None:
        raise NotImplementedError

    def region(self, region: IRRegion, guard: smt.BoolRef) -> list[IRValue] | None:
        raise NotImplementedError

    def not_modelled(self, op: IROp, guard: smt.BoolRef, what: str) -> None:
        raise NotImplementedError
