"""A counterexample's integer arguments are small where any model allows it.

The solver is reused across queries (push/pop), so which model a `sat`
answer carries depends on what it was asked before; a witness's loop bound
of 2**40 made one test's execution cross-check run for gigabytes in CI.
`solver.check` now asks for arguments at most SMALL_ARGUMENT first."""

from __future__ import annotations

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.invariants import solver


def _arg(name: str = "main:%n") -> smt.ExprRef:
    return smt.BitVec(name, 64)


def test_a_small_value_is_chosen_where_one_exists() -> None:
    n = _arg()
    big = smt.BitVecVal(1 << 40, 64)
    for formula in (smt.Or(n == big, n == 3), smt.Or(n == big, n == big + 1, n == 3)):
        answer = solver.check(formula)
        assert answer.status == "sat" and answer.model is not None
        assert solver.bool_assignment(answer.model, formula) == {"main:%n": 3}


def test_a_model_the_bound_excludes_is_kept() -> None:
    n = _arg()
    formula = smt.UGT(n, smt.BitVecVal(1 << 40, 64))
    answer = solver.check(formula)
    assert answer.status == "sat" and answer.model is not None
    assert solver.bool_assignment(answer.model, formula)["main:%n"] > 1 << 40


def test_a_session_query_gets_small_arguments_under_its_base() -> None:
    n, m = _arg(), _arg("main:%m")
    base = [smt.UGT(m, n)]  # the base constrains both
    with solver.Session(base) as session:
        formula = smt.Or(n == smt.BitVecVal(1 << 50, 64), smt.And(n == 2, m != 0))
        answer = session.check(formula)
    assert answer.status == "sat" and answer.model is not None
    got = solver.bool_assignment(answer.model, formula)
    assert got["main:%n"] == 2 and 2 < got["main:%m"] <= solver.SMALL_ARGUMENT
