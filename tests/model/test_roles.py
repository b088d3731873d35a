"""Issue 39, item 7: a violation's roles are a typed frozen record that
triage and repro read; the worded detail can change without changing what
they decide."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpu_alloc_verify.repro.export import summary_sentence
from gpu_alloc_verify.repro.order import edge_sentence, order_plans
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.triage.signature import signature_of
from tests.repro.test_lit_order import BUGGY, FIXED, RECORD


def test_roles_are_frozen_and_travel_in_the_counterexample() -> None:
    said = Roles(source_op="op2", kind="stream", destroy_count=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        said.kind = "event"  # type: ignore[misc]
    cex = {"path": {}, **said.entries()}
    assert cex == {"path": {}, "source_op": "op2", "kind": "stream", "destroy_count": 2}
    assert Roles.of({"counterexample": cex}) == said


def test_an_older_or_odd_record_has_no_roles() -> None:
    assert Roles.of({}) == Roles()
    assert Roles.of({"counterexample": "?"}) == Roles()
    odd = Roles.from_counterexample({"source_op": "", "kind": 3, "destroy_count": True,
                                     "left": None})
    assert odd == Roles()


def _reworded(record: dict[str, Any]) -> dict[str, Any]:
    return dict(record, detail="(reworded)")


def test_the_order_sentence_and_plan_read_the_roles() -> None:
    assert edge_sentence(_reworded(RECORD)) == edge_sentence(RECORD) is not None
    assert repr(order_plans(_reworded(RECORD), BUGGY, FIXED)) == \
        repr(order_plans(RECORD, BUGGY, FIXED)) != "[]"


def test_an_invalid_ir_signature_reads_the_error_role() -> None:
    record = {"invariant": "lowering-no-crash", "lowering": "mlir-opt-19",
              "detail": "gpu-to-llvm emitted IR that fails verification on a valid program: "
                        "'llvm.insertvalue' op Type mismatch: cannot insert '!llvm.ptr<1>' "
                        "into '!llvm.struct<(ptr)>' (at k.mlir:3:13)",
              "program": "func.func @f() {\n  %m = gpu.alloc () : memref<4xf32, 1> "
                         "loc(\"k.mlir\":3:13)\n  return\n}\n",
              "counterexample": {"diagnostics": "", **Roles(
                  error="'llvm.insertvalue' op Type mismatch: cannot insert '!llvm.ptr<1>' "
                        "into '!llvm.struct<(ptr)>'", error_at="k.mlir:3:13").entries()}}
    sig = signature_of(record)
    assert sig == signature_of(_reworded(record))
    # The op the error role names (an alloc in space 1): one cause with the
    # dealloc's invalid IR (issue 42), not named by the complaint's words.
    assert sig.focus == "gpu.alloc or gpu.dealloc in memory space"


def test_a_leak_sentence_reads_the_count_and_the_path() -> None:
    program = ("func.func @f(%c: i1) {\n"
               "  %t = gpu.wait async loc(\"op1\")\n"
               "  return\n}\n")
    lowered = ('%0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")\n')
    base = {"invariant": "stream-no-leak", "program": program, "lowered": lowered,
            "detail": "stream created by op1 (mgpuStreamCreate) is destroyed 2 time(s), "
                      "not exactly once, when %arg0=true"}
    twice = dict(base, counterexample={"path": {"f:%arg0": True},
                                       **Roles(source_op="op1", destroy_count=2).entries()})
    never = dict(base, counterexample={"path": {"f:%arg0": True},
                                       **Roles(source_op="op1", destroy_count=0).entries()})
    assert summary_sentence(_reworded(twice)) == summary_sentence(twice)
    assert summary_sentence(twice).endswith("is destroyed 2 times")
    assert summary_sentence(_reworded(never)).endswith("is not destroyed when %c=true")
