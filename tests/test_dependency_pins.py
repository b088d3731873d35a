"""What the project relies on in its dependencies' unpublished API still holds.

Two modules use it, each saying what it relies on and on which version:
`verify/lowerings/xdsl_private.py` (xDSL's IR fields) and
`generators/hypothesis_private.py` (Hypothesis internals).  Each test here
checks one point against the installed version; a failure after an upgrade
names what changed and which module to revisit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import hypothesis
import xdsl
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from xdsl.dialects import test
from xdsl.dialects.builtin import StringAttr, UnitAttr, UnknownLoc, i32, i64
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import Rewriter

from gpu_alloc_verify.generators import hypothesis_private as hp
from gpu_alloc_verify.verify.lowerings import xdsl_private as xp


def xdsl_changed(what: str) -> str:
    return (f"xdsl {xdsl.__version__} changed {what}: verify/lowerings/xdsl_private.py "
            "relies on it (its docstring says how, for xdsl 0.75); re-check it against this "
            "xDSL, or keep xdsl at 0.75")


def hypothesis_changed(what: str) -> str:
    return (f"hypothesis {hypothesis.__version__} changed {what}: "
            "generators/hypothesis_private.py relies on it (its docstring says how, for "
            "hypothesis 6.170); re-check it against this Hypothesis")


# -- xDSL ---------------------------------------------------------------------


def test_xdsl_ir_fields_are_the_ones_written() -> None:
    problems = xp.layout_problems()
    assert not problems, xdsl_changed(
        "the IR's fields (" + "; ".join(problems) + "); meanwhile the lowerings call xDSL's "
        "methods instead of the fast paths: slower, the same IR")
    assert xp.RAW_OPS and xp.RAW_LINKS and xp.RAW_NAMES


Make = Callable[..., Operation]


def _create(cls: type[Operation], operands: list[Any], types: list[Any],
            properties: dict[str, Any], attributes: dict[str, Any] | None,
            regions: list[Region]) -> Operation:
    return cls.create(operands=operands, result_types=types, properties=properties,
                      attributes=attributes or {}, location=UnknownLoc(), regions=regions)


def _fast(cls: type[Operation], operands: list[Any], types: list[Any],
          properties: dict[str, Any], attributes: dict[str, Any] | None,
          regions: list[Region]) -> Operation:
    op: Operation = xp.new_op(cls, operands, types, properties, UnknownLoc(), attributes,
                              regions)
    return op


def _made(make: Make) -> dict[str, Any]:
    """What two ops made by `make` hold, and their operands' use lists, in
    terms that compare between two builds."""
    block = Block(arg_types=[i32, i64])
    a, b = block.args
    ops = [make(test.TestOp, [a, b, a], [i32, i64], {"p": UnitAttr()},
                {"x": StringAttr("y")}, [Region(Block())]),
           make(test.TestOp, [b], [], {}, None, [])]
    values: list[Any] = list(block.args)

    def state(op: Operation) -> dict[str, Any]:
        return {
            "class": type(op),
            "operands": [values.index(v) for v in op.operands],
            "results": [(r.type, r.op is op, r.index) for r in op.results],
            "properties": op.properties, "attributes": op.attributes,
            "location": op.location, "successors": list(op.successors),
            "regions": [(r.parent is op, r.first_block is not None) for r in op.regions],
            "links": (op.parent, op.prev_op, op.next_op),
        }

    return {"ops": [state(op) for op in ops],
            "uses": [[(ops.index(u.operation), u.index) for u in v.uses] for v in values],
            "instance attributes": set().union(*(vars(op) for op in ops))}


def test_new_op_makes_what_operation_create_makes() -> None:
    fast, created = _made(_fast), _made(_create)
    # `new_op` also sets the fields left at their class defaults.
    assert created.pop("instance attributes") <= fast.pop("instance attributes") \
        <= xp.OP_FIELDS, xdsl_changed("what Operation.create sets on an op")
    assert fast == created, xdsl_changed(
        "what Operation.create sets up (its fields, or the order of a value's uses)")


def _links(append: Callable[[Block, Operation], None],
           insert_before: Callable[[Block, Operation, Operation], None]) -> Any:
    block = Block()
    ops: list[Operation] = [test.TestOp.create() for _ in range(4)]
    append(block, ops[0])
    append(block, ops[2])
    insert_before(block, ops[1], ops[2])
    insert_before(block, ops[3], ops[0])

    def at(op: Operation | None) -> int | None:
        return None if op is None else ops.index(op)

    return ([at(op) for op in block.ops], [at(op) for op in reversed(block.ops)],
            at(block.first_op), at(block.last_op),
            [(op.parent is block, at(op.prev_op), at(op.next_op)) for op in ops])


def test_linking_ops_is_what_block_methods_do() -> None:
    def xdsl_insert(block: Block, op: Operation, anchor: Operation) -> None:
        block.insert_op_before(op, anchor)

    assert _links(xp.append, xp.insert_before) == _links(Block.add_op, xdsl_insert), \
        xdsl_changed("how a Block links its ops")


def _erased(erase: Callable[[Operation], object]) -> Any:
    block = Block(arg_types=[i32])
    ops = [test.TestOp.create(operands=[block.args[0]]) for _ in range(3)]
    block.add_ops(ops)
    erase(ops[1])
    erase(ops[0])
    return ([ops.index(op) for op in block.ops], block.first_op is ops[2],
            block.last_op is ops[2], [op.parent is None for op in ops],
            [(ops.index(u.operation), u.index) for u in block.args[0].uses])


def test_erase_unlinks_what_rewriter_erase_op_unlinks() -> None:
    assert _erased(xp.erase) == _erased(Rewriter.erase_op), \
        xdsl_changed("what Rewriter.erase_op unlinks")
    with_region = test.TestOp.create(regions=[Region(Block())])
    assert xp.erase(with_region) is False and with_region.regions


def _replaced(replace: Callable[[Any, Any], object]) -> Any:
    block = Block(arg_types=[i32, i32])
    old, new = block.args
    old.name_hint = "old"
    users = [test.TestOp.create(operands=[old, new, old]), test.TestOp.create(operands=[old])]
    block.add_ops(users)
    replace(old, new)
    return ([[block.args.index(v) for v in u.operands] for u in users],
            [(users.index(u.operation), u.index) for u in new.uses],
            old.first_use is None, new.name_hint, xp.use_count(new), new.uses.get_length())


def test_replace_uses_is_what_replace_all_uses_with_does() -> None:
    assert _replaced(xp.replace_uses) == _replaced(lambda o, n: o.replace_all_uses_with(n)), \
        xdsl_changed("how SSAValue.replace_all_uses_with moves uses and names")


def test_name_hint_is_kept_in_name() -> None:
    value = Block(arg_types=[i32]).args[0]
    value.name_hint = "x"
    assert value._name == "x", xdsl_changed("where SSAValue.name_hint is stored (_name)")
    value._name = "y"
    assert value.name_hint == "y", xdsl_changed("where SSAValue.name_hint is read from (_name)")


# -- Hypothesis ---------------------------------------------------------------


def test_draw_seeded_draws_from_the_seed_alone() -> None:
    strategy = st.lists(st.integers(0, 10**6), min_size=3, max_size=3)
    first = hp.draw_seeded(strategy, "pin:0")
    assert first is not None, hypothesis_changed("drawing from a ConjectureData")
    assert hp.draw_seeded(strategy, "pin:0") == first, hypothesis_changed(
        "drawing from a seeded ConjectureData (not the same value for the same seed)")
    assert hp.draw_seeded(strategy, "pin:1") != first
    # Draws that stop are None (`max_choices` ran out).
    assert hp.draw_seeded(st.lists(st.integers(), min_size=50), "pin:0", max_choices=5) is None


class _Probe(hp.HandOffStrategy):
    pass


def test_hand_off_draws_are_one_span_each() -> None:
    from hypothesis.control import BuildContext
    from hypothesis.internal.conjecture.data import ConjectureData
    from hypothesis.internal.conjecture.utils import calc_label_from_name

    probe = _Probe()
    drawn: list[int] = []

    def hand_off(draw: Any) -> None:
        probe.next = lambda d: drawn.append(d(st.integers(0, 9)))
        draw(probe)

    data = ConjectureData(random=random.Random(0), max_choices=100)
    with BuildContext(data, wrapped_test=test_hand_off_draws_are_one_span_each):
        for _ in range(3):
            hand_off(data.draw)
    data.freeze()
    assert len(drawn) == 3, hypothesis_changed("SearchStrategy.do_draw(data)")
    assert probe.label == calc_label_from_name("_Probe"), hypothesis_changed(
        "how a strategy's label is made (its class's __qualname__)")
    spans = [s for s in data.spans if s.label == probe.label]
    assert len(spans) == 3 and all(s.choice_count == 1 for s in spans), hypothesis_changed(
        "the spans a strategy's draw makes")


def _recording_test(db: InMemoryExampleDatabase, salt: bytes, seen: list[int],
                    phases: list[Phase]) -> Any:
    def prop(n: int) -> None:
        seen.append(n)
        choices.append(hp.current_choices())
        assert n != 737

    choices: list[Any] = []
    hp.salt_database_key(prop, salt)
    wrapped = settings(database=db, phases=phases, max_examples=20,
                       suppress_health_check=list(HealthCheck), deadline=None)(
        given(st.integers(0, 1000))(prop))
    wrapped.choices = choices  # type: ignore[attr-defined]
    return wrapped


def _run(replay: Any) -> None:
    """Run a reuse-only test: it fails on 737, and is skipped (unittest's
    SkipTest) when it finds no example to reuse; what it saw tells which."""
    try:
        replay()
    except Exception:  # noqa: BLE001 - the caller asserts on what it saw
        pass


def test_salt_makes_the_database_key() -> None:
    db = InMemoryExampleDatabase()
    a = _recording_test(db, b"a", [], [Phase.generate])
    b = _recording_test(db, b"b", [], [Phase.generate])
    assert hp.database_key(a) != hp.database_key(b), hypothesis_changed(
        "function_digest (it ignores _hypothesis_internal_add_digest)")
    # A failing example is saved under the key computed here.
    db.save(hp.database_key(a), hp.choices_to_bytes((737,)))
    seen: list[int] = []
    replay = _recording_test(db, b"a", seen, [Phase.reuse])
    _run(replay)
    assert seen[:1] == [737], hypothesis_changed(
        "the example-database key of an @given test (function_digest of the inner test)")


def test_secondary_corpus_is_replayed_and_choices_are_read() -> None:
    db = InMemoryExampleDatabase()
    seen: list[int] = []
    replay = _recording_test(db, b"salt", seen, [Phase.reuse])
    db.save(hp.secondary_database_key(replay), hp.choices_to_bytes((737,)))
    _run(replay)
    assert 737 in seen, hypothesis_changed(
        "the secondary corpus (key + b'.secondary', or choices_to_bytes)")
    assert replay.choices[seen.index(737)] == (737,), hypothesis_changed(
        "current_build_context().data.choices")
    assert hp.current_choices() is None  # outside a test
