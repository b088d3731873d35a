"""Every consumer of the program model handles every op kind (issue 30).

Each consumer keeps its per-op logic in a dispatch table keyed by op class and
looked up by `type(op)`: the printer (text, and the constants it hoists), the
fast reader's objects (`verify.source.light`), the xDSL builder, the source
interpreter and the generator's feature tags.  A new op kind in
`verify.model.program.Op` then fails here until each table has an entry for
it, or the consumer lists it in `NOT_HANDLED` with the reason.  An op kind
with no entry is an error that names the consumer and the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, get_args

import pytest

from gpu_alloc_verify.generators import features as features_mod
from gpu_alloc_verify.oracles import source_interp
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.lowerings import xdsl_build
from gpu_alloc_verify.verify.model import printer
from gpu_alloc_verify.verify.model.errors import InterpreterDeclined
from gpu_alloc_verify.verify.model.program import (
    OP_KINDS,
    TEXT_ONLY_OPS,
    Function,
    Op,
    Program,
)
from gpu_alloc_verify.verify.source import light

# consumer -> its dispatch table (op class -> handler).
TABLES: dict[str, Mapping[type, Callable[..., Any]]] = {
    "verify.model.printer (text)": printer._OP_PRINTERS,
    "verify.model.printer.constants_of (hoisted constants)": printer._OP_CONSTANTS,
    "verify.source.light (the fast reader's objects)": light._OP_BUILDERS,
    "verify.lowerings.xdsl_build (xDSL module)": xdsl_build._OP_BUILDERS,
    "oracles.source_interp (the source interpreter)": source_interp._OP_RUNNERS,
    "generators.features (feature tags)": features_mod._OP_FEATURES,
}

# consumer -> {op class: why it deliberately has no entry}.  The in-process
# consumers leave the host code of issue 40 to the text path: a program
# holding it is judged from its printed text, as a user's file is.
_TEXT = "judged from its text (verify.model.program.in_process_gap)"
NOT_HANDLED: dict[str, dict[type, str]] = {name: {} for name in TABLES}
for _consumer in ("verify.source.light (the fast reader's objects)",
                  "verify.lowerings.xdsl_build (xDSL module)",
                  "oracles.source_interp (the source interpreter)"):
    NOT_HANDLED[_consumer] = dict.fromkeys(TEXT_ONLY_OPS, _TEXT)


def test_op_kinds_are_the_op_union() -> None:
    assert OP_KINDS == get_args(Op)
    assert len(set(OP_KINDS)) == len(OP_KINDS)
    for kind in OP_KINDS:
        assert is_dataclass(kind) and "id" in {f.name for f in fields(kind)}, kind


@pytest.mark.parametrize("consumer", sorted(TABLES))
def test_every_op_kind_has_an_entry(consumer: str) -> None:
    table, skipped = TABLES[consumer], NOT_HANDLED[consumer]
    assert set(skipped) <= set(OP_KINDS), f"{consumer}: NOT_HANDLED names a non-op"
    assert all(reason.strip() for reason in skipped.values()), f"{consumer}: a reason is empty"
    missing = set(OP_KINDS) - set(skipped) - set(table)
    extra = set(table) - (set(OP_KINDS) - set(skipped))
    assert not missing, (f"{consumer} handles no "
                         f"{sorted(k.__name__ for k in missing)}: add an entry to its "
                         f"table, or list the kind in NOT_HANDLED with the reason")
    assert not extra, f"{consumer}: entries for {sorted(k.__name__ for k in extra)}"
    assert all(callable(handle) for handle in table.values())


@dataclass(frozen=True)
class _Strange:
    """An op kind no consumer knows."""

    id: str


_FN = Function("f", (), ())
_OP: Any = _Strange("op0")


@pytest.mark.parametrize(("consumer", "call", "error"), [
    ("verify.model.printer", lambda: printer._Printer("").op(_OP, 0), TypeError),
    ("verify.model.printer.constants_of",
     lambda: printer.constants_of(Function("f", (), (_OP,))), TypeError),
    ("verify.source.light", lambda: light._FunctionBuilder(_FN).op(_OP, ""), TypeError),
    ("verify.lowerings.xdsl_build",
     lambda: xdsl_build._FunctionBuilder(_FN).op(_OP, xdsl_build.op_loc("op0")), TypeError),
    # The source interpreter declines it: callers catch that as "unsupported".
    ("oracles.source_interp",
     lambda: source_interp._Interp(_FN, {}, SimulatedRuntime()).op(_OP), InterpreterDeclined),
    ("generators.features",
     lambda: features_mod.features(Program((Function("f", (), (_OP,)),))), TypeError),
])
def test_an_unknown_op_kind_names_the_consumer_and_the_kind(
        consumer: str, call: Callable[[], object], error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        call()
    assert consumer in str(info.value) and "_Strange" in str(info.value)
