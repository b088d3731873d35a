"""The shortcuts that keep most questions away from Z3 give Z3's answers.

- `verify.model.fold` constructors build terms equivalent to the plain Z3 ones;
- `fold.path_of` decides conjunctions of branch literals as Z3 does;
- `Schedule.ordered` (a chain of constraints) never claims an order that
  some schedule breaks, on the schedules of generated, lowered programs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.extract.calls import extract
from gpu_alloc_verify.verify.invariants.schedule import encode
from gpu_alloc_verify.verify.ir.lowered_ir import read_lowered
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.source.of_program import source_facts
from tests.conftest import collect_programs

INTS = [z3.Int("x"), z3.Int("y")]
BOOLS = ["p", "q", "r"]


def _int_leaf() -> st.SearchStrategy[Any]:
    return st.one_of(st.tuples(st.just("lit"), st.integers(-2, 2)),
                     st.tuples(st.just("var"), st.integers(0, len(INTS) - 1)))


def _bool_leaf() -> st.SearchStrategy[Any]:
    return st.one_of(st.tuples(st.just("const"), st.booleans()),
                     st.tuples(st.just("branch"), st.sampled_from(BOOLS)))


bool_recipes = st.recursive(
    _bool_leaf(),
    lambda sub: st.one_of(
        st.tuples(st.just("eq"), _int_leaf(), _int_leaf()),
        st.tuples(st.just("ne"), _int_leaf(), _int_leaf()),
        st.tuples(st.just("neg"), sub),
        st.tuples(st.just("conj"), st.lists(sub, max_size=4)),
        st.tuples(st.just("disj"), st.lists(sub, max_size=4)),
        st.tuples(st.just("ite"), sub, sub, sub),
        st.tuples(st.just("one_of"), _int_leaf(), st.lists(st.integers(-2, 2), max_size=3)),
    ),
    max_leaves=12,
)


def _int(recipe: Any, folded: bool) -> z3.ArithRef:
    kind, arg = recipe
    if kind == "lit":
        return fold.lit(arg) if folded else z3.IntVal(arg)
    return INTS[arg]


def build(recipe: Any, folded: bool) -> z3.BoolRef:
    kind = recipe[0]
    if kind == "const":
        return fold.boolean(recipe[1]) if folded else z3.BoolVal(recipe[1])
    if kind == "branch":
        return fold.branch(recipe[1]) if folded else z3.Bool(recipe[1])
    if kind in ("eq", "ne"):
        a, b = _int(recipe[1], folded), _int(recipe[2], folded)
        if folded:
            return fold.eq(a, b) if kind == "eq" else fold.ne(a, b)
        return a == b if kind == "eq" else a != b
    if kind == "neg":
        inner = build(recipe[1], folded)
        return fold.neg(inner) if folded else z3.Not(inner)
    if kind in ("conj", "disj"):
        parts = [build(r, folded) for r in recipe[1]]
        if folded:
            return fold.conj(*parts) if kind == "conj" else fold.disj(parts)
        return z3.And(*parts, z3.BoolVal(True)) if kind == "conj" else \
            z3.Or(*parts, z3.BoolVal(False))
    if kind == "ite":
        c, t, e = (build(r, folded) for r in recipe[1:])
        return fold.ite(c, t, e) if folded else z3.If(c, t, e)  # type: ignore[return-value]
    assert kind == "one_of"
    value = _int(recipe[1], folded)
    if folded:
        return fold.one_of(value, recipe[2])
    return z3.Or(*[value == h for h in recipe[2]], z3.BoolVal(False))


def _equivalent(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(a != b)
    return s.check() == z3.unsat


@given(bool_recipes)
def test_folded_terms_mean_what_z3_means(recipe: Any) -> None:
    folded, plain = build(recipe, True), build(recipe, False)
    assert _equivalent(folded, plain), (recipe, folded, plain)
    # A literal from folding is the literal Z3 finds.
    if fold.truth(folded) is not None:
        assert z3.is_true(z3.simplify(plain)) == fold.truth(folded)


literal_conj = st.lists(st.one_of(st.tuples(st.sampled_from(BOOLS), st.booleans()),
                                  st.sampled_from(["TRUE", "FALSE"])), max_size=6)


@given(literal_conj)
def test_path_of_decides_branch_conjunctions_as_z3_does(parts: list[Any]) -> None:
    terms = []
    for p in parts:
        if p in ("TRUE", "FALSE"):
            terms.append(fold.boolean(p == "TRUE"))
        else:
            var = fold.branch(p[0])
            terms.append(var if p[1] else fold.neg(var))
    formula = fold.conj(*terms)
    decided = fold.path_of(formula)
    s = z3.Solver()
    s.add(formula)
    if decided is False:
        assert s.check() == z3.unsat
        return
    assert isinstance(decided, dict)
    # The assignment it names satisfies the formula, and names its variables.
    s.add(*[z3.Bool(k) == v for k, v in decided.items()])
    assert s.check() == z3.sat
    mentioned = {p[0] for p in parts if p not in ("TRUE", "FALSE")}
    assert set(decided) == mentioned


def test_path_of_leaves_anything_else_to_z3() -> None:
    x = z3.Int("x")
    assert fold.path_of(fold.conj(fold.branch("p"), x > 0)) is None
    assert fold.path_of(z3.Bool("plain")) is None  # untagged: not guessed


def _schedules(spec: str, n: int) -> list[Any]:
    lowering = resolve(spec)
    progs = collect_programs(n, GenConfig(max_ops=14))
    out = []
    for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
        if outcome.status != "ok":
            continue
        module = outcome.module if outcome.module is not None else read_lowered(outcome.lowered)
        facts = extract(module, source_facts(program).arg_names)
        for func in dict.fromkeys(c.func for c in facts.calls):
            out.append(encode([c for c in facts.calls if c.func == func]))
    return out


@pytest.mark.slow
def test_schedule_chains_never_claim_an_order_some_schedule_breaks() -> None:
    rng = random.Random(0)
    proved = refuted = 0
    # Hypothesis starts with small programs; 150 reach the ones with
    # enough calls for both answers to occur many times.
    for sch in _schedules("xdsl:pr69969", 150):
        items = list(sch.items.values())
        pairs = [(a, b) for a in items for b in items if b.call.index > a.call.index]
        for a, b in rng.sample(pairs, min(len(pairs), 8)):
            path = fold.conj(a.call.guard, b.call.guard)
            if path is fold.FALSE:
                continue
            claim = sch.ordered(a.end, b.start, fold.atoms(path))
            s = z3.Solver()
            s.add(*sch.constraints, path, sch.var(b.start) < sch.var(a.end))
            answer = s.check()
            if claim:
                assert answer == z3.unsat, (a.call, b.call)
                proved += 1
            elif answer == z3.sat:
                refuted += 1
    # Both kinds occur, so the check above has teeth.
    assert proved > 100 and refuted > 10, (proved, refuted)
