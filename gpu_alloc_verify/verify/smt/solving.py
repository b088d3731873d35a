"""Z3's solver as the checkers use it: the solver, its answers and its models.

Re-exports at run time, declarations for the type checker (see `terms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.smt.terms import is_bv_value, is_int_value

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.smt.terms import ExprRef, FuncDeclRef

    class CheckSatResult:
        """`sat`, `unsat` or `unknown`."""

    sat: CheckSatResult
    unsat: CheckSatResult
    unknown: CheckSatResult

    class ModelRef:
        def eval(self, t: ExprRef, model_completion: bool = False) -> ExprRef: ...
        def decls(self) -> list[FuncDeclRef]: ...

    class Solver:
        def add(self, *args: ExprRef) -> None: ...
        def check(self, *assumptions: ExprRef) -> CheckSatResult: ...
        def model(self) -> ModelRef: ...
        def push(self) -> None: ...
        def pop(self, num: int = 1) -> None: ...
        def set(self, *args: object, **keys: object) -> None: ...
        def reason_unknown(self) -> str: ...

    def Model() -> ModelRef:
        """An empty model."""

    class Z3Exception(Exception):
        """An error Z3 reports (a sort mismatch, a bad argument)."""

else:
    from z3 import (
        CheckSatResult,
        Model,
        ModelRef,
        Solver,
        Z3Exception,
        sat,
        unknown,
        unsat,
    )



def int_in(model: ModelRef, term: ExprRef) -> int:
    """The value `model` gives an integer or bit-vector `term` (a bit-vector's
    unsigned value), its completion deciding what the model leaves open."""
    value = model.eval(term, model_completion=True)
    if is_int_value(value) or is_bv_value(value):
        return value.as_long()
    raise TypeError(f"not an integer term: {term.sexpr()}")


# Re-exported names (the declarations above, z3's objects at run time).
__all__ = [
    "CheckSatResult",
    "Model",
    "ModelRef",
    "Solver",
    "Z3Exception",
    "int_in",
    "sat",
    "unknown",
    "unsat",
]
