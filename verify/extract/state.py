"""The extractor's state and value bookkeeping (see `verify.extract.calls`):
SSA values to terms, kept per path when a definition is walked again;
stand-ins, unknown values, escapes and cuts."""

from __future__ import annotations

from typing import Any

import z3

from verify.extract.facts import (
    ESCAPE,
    Call,
    Cut,
    LoweredFacts,
    Words,
    words,
)
from verify.ir.attrs import pointer_like, source_loc
from verify.ir.lowered_ir import op_name
from verify.model import fold
from verify.model.fold import ite, lit
from verify.model.values import (
    HANDLE_BASE,
    UNKNOWN_PREFIX,
    escape_flag,
    literal,
    may_be_handle,
    unknown_int,
)


class WalkerState:
    """What the walk knows so far; `ControlFlow`, `Memory` and
    `verify.extract.calls` add the walking itself."""

    def __init__(self, arg_names: dict[str, list[str]], loop_bound: int,
                 funcs: dict[str, Any]) -> None:
        self.arg_names = arg_names
        self.loop_bound = loop_bound
        self.funcs = funcs
        self.facts = LoweredFacts()
        self.env: dict[Any, z3.ArithRef] = {}
        self.conds: dict[Any, z3.BoolRef] = {}
        # Struct values: the fields set here, and what the others are
        # ("undef": never set, "data": no handle in them, e.g. a root's
        # argument, "unknown").
        self.structs: dict[Any, tuple[dict[tuple[int, ...], z3.ArithRef], str]] = {}
        self.mem: dict[int, z3.ArithRef] = {}  # stack slot -> its content
        self.slots: set[int] = set()
        self.escaped_slots: set[int] = set()
        self.fresh_count = 0
        self.next_handle = HANDLE_BASE + 1
        self.func = ""
        self.iters: tuple[int, ...] = ()
        self.inlining: list[str] = []
        self.returns: list[list[tuple[z3.BoolRef, list[z3.ArithRef], list[z3.BoolRef]]]] = []
        self.true = fold.TRUE

    # -- values ------------------------------------------------------------
    def fresh(self, hint: str = "v") -> z3.ArithRef:
        """A value that is provably not a handle: a distinct negative literal."""
        # Far below any constant a program uses, so a stand-in never equals one.
        self.fresh_count += 1
        value = -(HANDLE_BASE + self.fresh_count)
        self.facts.unknown_values.add(value)
        return lit(value)

    def unknown(self, why: str) -> z3.ArithRef:
        """A value the analysis cannot follow: it may be any handle."""
        self.fresh_count += 1
        name = f"{UNKNOWN_PREFIX}{self.fresh_count}"
        self.facts.unknowns[name] = why
        return unknown_int(name)

    def opaque_result(self, value: Any, why: Words, tainted: bool) -> z3.ArithRef:
        """The result of something not modelled: unknown if it may carry a
        handle (pointer-like, from handle operands), else distinct."""
        if tainted and pointer_like(value):
            return self.unknown(words(why))
        return self.fresh()

    def val(self, ssa: Any) -> z3.ArithRef:
        term = self.env.get(ssa)
        if term is None:
            term = self.fresh()
            self.env[ssa] = term
        return term

    def define(self, ssa: Any, term: z3.ArithRef, guard: z3.BoolRef) -> None:
        # A definition walked again (a loop copy, a second inlining) is kept
        # under its guard: on each path the latest execution's value wins.
        old = self.env.get(ssa)
        self.env[ssa] = term if old is None else ite(guard, term, old)  # type: ignore[assignment]

    def define_cond(self, ssa: Any, term: z3.BoolRef, guard: z3.BoolRef) -> None:
        old = self.conds.get(ssa)
        self.conds[ssa] = term if old is None else ite(guard, term, old)  # type: ignore[assignment]

    def new_branch(self, op: Any) -> z3.BoolRef:
        self.fresh_count += 1
        loc = source_loc(op)
        at = f"@{loc}" if loc else ""
        return fold.branch(f"{self.func}:{op_name(op)}{at}#{self.fresh_count}")

    def cond(self, ssa: Any) -> z3.BoolRef:
        c = self.conds.get(ssa)
        if c is None:
            known = literal(self.env[ssa]) if ssa in self.env else None
            if known is not None and known >= 0:
                return fold.boolean(bool(known))
            self.fresh_count += 1
            c = fold.branch(f"{self.func}:?{self.fresh_count}")
            self.conds[ssa] = c
        return c

    def cut(self, guard: z3.BoolRef, reason: str) -> None:
        if guard is not fold.FALSE:
            self.facts.cuts.append(Cut(guard, f"{reason} (in @{self.func})"))

    def escape(self, value: z3.ArithRef, guard: z3.BoolRef, where: Words,
               source_op: str | None) -> None:
        if guard is fold.FALSE or not may_be_handle(value):
            return
        where = words(where)
        n = len(self.facts.calls)
        flags = (escape_flag(f"!d{n}"), escape_flag(f"!u{n}"))
        self.facts.calls.append(Call(n, self.func, ESCAPE, (value,), guard, source_op,
                                     iters=self.iters, note=where, flags=flags))

    def escape_operands(self, op: Any, guard: z3.BoolRef, where: Words) -> bool:
        """Escapes for the operands of `op` that may be handles; True if any."""
        any_handle = False
        for v in op.operands:
            term = self.val(v)
            if may_be_handle(term):
                any_handle = True
                self.escape(term, guard, where, source_loc(op))
            self.escape_slot(term, guard, where, source_loc(op))
        return any_handle

    def escape_slot(self, term: z3.ArithRef, guard: z3.BoolRef, where: Words,
                    source_op: str | None) -> None:
        """A stack slot whose address leaves what the analysis follows: its
        content escapes with it, and it is not tracked from then on."""
        slot = literal(term)
        if slot is None or slot not in self.slots or slot in self.escaped_slots:
            return
        self.escaped_slots.add(slot)
        content = self.mem.get(slot)
        if content is not None:
            self.escape(content, guard, f"in a stack slot {words(where)}", source_op)

    # -- walking -----------------------------------------------------------

    # -- what the walking classes provide ------------------------------------
    def op(self, op: Any, guard: z3.BoolRef) -> None:
        raise NotImplementedError

    def region(self, region: Any, guard: z3.BoolRef) -> list[Any] | None:
        raise NotImplementedError

    def not_modelled(self, op: Any, guard: z3.BoolRef, what: str) -> None:
        raise NotImplementedError
