"""Every Z3 query of the harness goes through here: one solver per thread,
reused incrementally (push/pop), a timeout per query, and `unknown` kept
apart from `unsat` so that a solver that gives up never reads as `holds`."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.model import fold

DEFAULT_TIMEOUT_MS = 2000
# A counterexample's integer arguments are first sought at or below this: a
# witness then runs a loop a few rounds, not the 2**40 a model may pick, and
# which model comes back no longer depends on what the reused solver saw before.
SMALL_ARGUMENT = 16
# An integer argument of a lowered function (`f0:%size0`), as `verify.extract.calls` names it.
_ARG_RE = re.compile(r"[^:?!]+:%")
_local = threading.local()


@dataclass
class SatResult:
    status: Literal["sat", "unsat", "unknown"]
    model: smt.ModelRef | None = None
    reason: str = ""
    path: dict[str, bool | int] | None = None  # branch values, when decided without Z3


def _new_solver() -> smt.Solver:
    """A solver for the harness's formulas: integers (handles, pointers,
    schedule times) with bit-vectors (the program's integers)."""
    return smt.Solver()


def _solver(timeout_ms: int) -> smt.Solver:
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _new_solver()
        _local.solver = solver
    solver.set("timeout", timeout_ms)
    return solver


def _trivial_model() -> smt.ModelRef:
    model = getattr(_local, "trivial_model", None)
    if model is None:
        model = _local.trivial_model = smt.Model()  # the empty model: no solver call
    return model


def check(formula: smt.BoolRef, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> SatResult:
    """Is `formula` satisfiable?  A model comes with `sat`."""
    decided = fold.path_of(formula)
    if decided is False:
        return SatResult("unsat")
    if isinstance(decided, dict):
        return SatResult("sat", _trivial_model() if not decided else None, path=dict(decided))
    if smt.is_false(formula) or smt.is_false(smt.simplify(formula)):
        return SatResult("unsat")
    if smt.is_true(formula):
        return SatResult("sat", _trivial_model())
    solver = _solver(timeout_ms)
    solver.push()
    try:
        solver.add(formula)
        return _outcome(solver, formula)
    finally:
        solver.pop()


def _outcome(solver: smt.Solver, formula: smt.BoolRef | None = None) -> SatResult:
    """Check what `solver` holds; `unknown` keeps the solver's reason.  A
    `sat` model gives `formula`'s integer arguments small values where any
    model can (`SMALL_ARGUMENT`)."""
    answer = solver.check()
    if answer == smt.sat:
        model = solver.model()
        return SatResult("sat", _small(solver, formula, model) if formula is not None else model)
    if answer == smt.unsat:
        return SatResult("unsat")
    return SatResult("unknown", reason=solver.reason_unknown() or "solver gave up")


def _small(solver: smt.Solver, formula: smt.BoolRef, model: smt.ModelRef) -> smt.ModelRef:
    """A model of `solver` whose integer arguments in `formula` are all at
    most SMALL_ARGUMENT (unsigned), if there is one; else `model`."""
    bounds: list[smt.BoolRef] = []
    for var in free_bools(formula):
        value = model.eval(var, model_completion=True)
        if smt.is_bv(var) and smt.is_bv_value(value) and value.as_long() > SMALL_ARGUMENT:
            bounds.append(smt.ULE(var, smt.BitVecVal(SMALL_ARGUMENT, var.size())))
        elif (smt.is_int(var) and smt.is_int_value(value)
              and not 0 <= value.as_long() <= SMALL_ARGUMENT):
            bounds.append(smt.And(var >= 0, var <= SMALL_ARGUMENT))
    if not bounds:
        return model  # already small: no second query
    solver.push()
    try:
        solver.add(*bounds)
        return solver.model() if solver.check() == smt.sat else model
    finally:
        solver.pop()


def check_forall(formula: smt.BoolRef, hidden: list[smt.ExprRef],
                 timeout_ms: int = DEFAULT_TIMEOUT_MS) -> SatResult:
    """Is there an assignment of the other variables under which `formula`
    holds for every value of `hidden` (values the analysis could not follow)?
    `sat` means the violation is shown whatever those values are."""
    if hidden and instance_refutes(formula, hidden):
        return SatResult("unsat")
    solver = smt.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(smt.ForAll(hidden, formula) if hidden else formula)
    return _outcome(solver)


# A decimal literal of a formula's s-expression (not a name's digits, nor a
# bit-vector's hex).
_LITERAL_RE = re.compile(r"(?<=[\s(])(\d+)(?=[\s)])")
_INSTANCES = 6  # literal values tried before the quantified query


def instance_refutes(formula: smt.BoolRef, hidden: list[smt.ExprRef]) -> bool:
    """Does one instance of `ForAll(hidden, formula)` simplify to false?  Then
    the quantified formula is unsatisfiable too (it implies each instance),
    and the quantifier solver, milliseconds per query, is not asked.  The
    values tried are 0 and the formula's own literals: an unfollowed value
    asked to be none of the handles fails once it is one of them."""
    text = formula.sexpr()
    values = list(dict.fromkeys([0, *(int(n) for n in _LITERAL_RE.findall(text))]))
    flags = [h for h in hidden if smt.is_bool(h)]
    for value in values[:_INSTANCES]:
        for flag in ((True, False) if flags else (True,)):
            pairs: list[tuple[smt.ExprRef, smt.ExprRef]] = []
            for h in hidden:
                if smt.is_bool(h):
                    pairs.append((h, smt.BoolVal(flag)))
                elif smt.is_bv(h):
                    pairs.append((h, smt.BitVecVal(value, h.size())))
                elif smt.is_int(h):
                    pairs.append((h, smt.IntVal(value)))
            if smt.is_false(smt.simplify(smt.substitute(formula, *pairs))):
                return True
    return False


def bool_assignment(model: smt.ModelRef, formula: smt.ExprRef) -> dict[str, bool | int]:
    """Values of the branch variables and integer arguments (`f:%n`) that
    `formula` mentions, by name: the program inputs of a counterexample.
    An integer argument is a bit-vector, and MLIR integers are signless:
    its value is given unsigned (an i64 -1 is 2**64 - 1)."""
    names: dict[str, bool | int] = {}
    for var in free_bools(formula):
        value = model.eval(var, model_completion=True)
        if smt.is_bool(var):
            if not str(var).startswith("!"):
                names[str(var)] = bool(smt.is_true(value))
        elif smt.is_int_value(value) or smt.is_bv_value(value):
            # An integer argument is signless: its unsigned value (an i64
            # of -1 reads 18446744073709551615).
            names[str(var)] = value.as_long()
    return dict(sorted(names.items()))


def free_bools(formula: smt.ExprRef) -> list[smt.ExprRef]:
    seen: dict[int, smt.ExprRef] = {}
    stack = [formula]
    visited: set[int] = set()
    while stack:
        e = stack.pop()
        if e.get_id() in visited:
            continue
        visited.add(e.get_id())
        if smt.is_const(e) and e.decl().kind() == smt.Z3_OP_UNINTERPRETED and (
                smt.is_bool(e) or _ARG_RE.match(str(e))):
            seen[e.get_id()] = e
        stack.extend(e.children())
    return list(seen.values())


class Session:
    """Many queries over one base (e.g. a schedule encoding): the base is
    asserted once, on the first query, and each query is pushed and popped
    on top of it.  `base` may be a callable, so that a base no query needs
    is never built.  `own=True` gives the session a solver of its own, for
    one open beside another (the thread's solver holds one base at a time)."""

    def __init__(self, base: list[smt.BoolRef] | Callable[[], list[smt.BoolRef]],
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, own: bool = False) -> None:
        self.base = base
        self.timeout_ms = timeout_ms
        self.own = own
        self.solver: smt.Solver | None = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.solver is not None:
            self.solver.pop()
            self.solver = None

    def _open(self) -> smt.Solver:
        if self.solver is None:
            if self.own:
                self.solver = _new_solver()
                self.solver.set("timeout", self.timeout_ms)
            else:
                self.solver = _solver(self.timeout_ms)
            self.solver.push()
            self.solver.add(*(self.base() if callable(self.base) else self.base))
        return self.solver

    def check(self, formula: smt.BoolRef) -> SatResult:
        if formula is fold.FALSE:
            return SatResult("unsat")
        solver = self._open()
        solver.push()
        try:
            solver.add(formula)
            return _outcome(solver, formula)
        finally:
            solver.pop()


def cannot_equal(term: smt.ExprRef, value: int) -> bool:
    """True when `term` is an integer literal other than `value` (no solver needed)."""
    known = fold.value_of(term)
    if known is not None and fold.width_of(term) is None:
        return known != value
    w = fold.width_of(term)
    if w is not None:  # a bit-vector: only values of its width
        return not 0 <= value < 1 << w or (known is not None and known != value)
    return smt.is_int_value(term) and term.as_long() != value
