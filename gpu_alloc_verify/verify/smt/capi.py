"""The few functions of Z3's C API that `verify.model.fold` calls directly:
building `==`, `not`, `and`, `or` and `if` of terms already of one sort and
context skips the Python API's coercions, most of a term's cost.

Re-exports at run time, declarations for the type checker (see `terms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

    from gpu_alloc_verify.verify.smt.terms import Ast, ContextObj

    class Sort(ctypes.c_void_p):
        """A sort's handle in Z3's C API."""

    def Z3_get_sort(c: ContextObj, a: Ast) -> Sort: ...
    def Z3_is_eq_sort(c: ContextObj, s1: Sort, s2: Sort) -> bool: ...
    def Z3_mk_eq(c: ContextObj, l: Ast, r: Ast) -> Ast: ...  # noqa: E741
    def Z3_mk_not(c: ContextObj, a: Ast) -> Ast: ...
    def Z3_mk_ite(c: ContextObj, t1: Ast, t2: Ast, t3: Ast) -> Ast: ...
    def Z3_mk_and(c: ContextObj, num_args: int, args: ctypes.Array[Ast]) -> Ast: ...
    def Z3_mk_or(c: ContextObj, num_args: int, args: ctypes.Array[Ast]) -> Ast: ...

else:
    from z3 import (
        Sort,
        Z3_get_sort,
        Z3_is_eq_sort,
        Z3_mk_and,
        Z3_mk_eq,
        Z3_mk_ite,
        Z3_mk_not,
        Z3_mk_or,
    )

# Re-exported names (the declarations above, z3's objects at run time).
__all__ = [
    "Sort",
    "Z3_get_sort",
    "Z3_is_eq_sort",
    "Z3_mk_and",
    "Z3_mk_eq",
    "Z3_mk_ite",
    "Z3_mk_not",
    "Z3_mk_or",
]
