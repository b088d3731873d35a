"""What the source program promises, as Z3 formulas over its branch values.

The same branch variables name both sides: `f0:%cond0` is the i1 argument
`%cond0` of `@f0` in the source and its counterpart in the lowered function,
so a path condition found on the lowered side reads in source terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from verify import fold
from verify.program import ASYNC_OPS, Alloc, For, If, Op, Program, Wait


def branch_var(func: str, arg: str) -> z3.BoolRef:
    return fold.branch(f"{func}:{arg}")


@dataclass
class SourceFacts:
    guards: dict[str, z3.BoolRef] = field(default_factory=dict)  # op id -> when it runs
    # op id -> when the token it produces is awaited by a host gpu.wait
    awaited: dict[str, z3.BoolRef] = field(default_factory=dict)
    ops: dict[str, Op] = field(default_factory=dict)
    func_of: dict[str, str] = field(default_factory=dict)
    arg_names: dict[str, list[str]] = field(default_factory=dict)

    def sync_allocs(self) -> list[Alloc]:
        return [op for op in self.ops.values() if isinstance(op, Alloc) and op.token is None]


def source_facts(program: Program) -> SourceFacts:
    facts = SourceFacts()
    for fn in program.functions:
        facts.arg_names[fn.name] = [a.name for a in fn.args]
        order: list[Op] = []

        def walk(ops: tuple[Op, ...], guard: z3.BoolRef, fn_name: str = fn.name) -> None:
            for op in ops:
                facts.guards[op.id] = guard
                facts.ops[op.id] = op
                facts.func_of[op.id] = fn_name
                order.append(op)  # noqa: B023 - walk runs within this iteration
                if isinstance(op, If):
                    c = branch_var(fn_name, op.cond)
                    walk(op.then, fold.conj(guard, c))
                    walk(op.orelse, fold.conj(guard, fold.neg(c)))
                elif isinstance(op, For):
                    walk(op.body, guard if op.trip_count > 0 else fold.FALSE)

        walk(fn.body, fold.TRUE)
        # A token is awaited when a host wait depends on it, directly or
        # through the tokens of later async ops (consumers follow producers).
        awaited_token: dict[str, list[z3.BoolRef]] = {}
        for op in reversed(order):
            if not isinstance(op, ASYNC_OPS):
                continue
            if op.token is None and isinstance(op, Wait):
                via = facts.guards[op.id]
            elif op.token is not None:
                via = fold.disj(awaited_token.get(op.token, []))
                facts.awaited[op.id] = via if fold.truth(via) is not None else _source(
                    z3.simplify(via))
            else:
                continue
            for dep in op.deps:
                awaited_token.setdefault(dep, []).append(via)
    return facts


def _source(term: z3.ExprRef) -> z3.BoolRef:
    """A source-side formula: never mentions a value of the lowered code."""
    term._taint = False  # type: ignore[attr-defined]
    return term  # type: ignore[return-value]
