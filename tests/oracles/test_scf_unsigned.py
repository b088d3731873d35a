"""`scf.for unsigned` runs as scf-to-cf lowers it, in the lowered and the
source interpreter: the bound compared as
unsigned.  An i8 loop from 0 to 200 (-56 as signed) runs its rounds; read
signed it ran none, and the execution cross-check agreed with an analysis
that ran none instead of with the native code (issue 43)."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.lowered_interp import _Machine, parse_module, read_fast

_LOOP = """"builtin.module"() ({
  "func.func"() <{function_type = () -> i8, sym_name = "f"}> ({
    %lb = "arith.constant"() <{value = 0 : i8}> : () -> i8
    %ub = "arith.constant"() <{value = -56 : i8}> : () -> i8
    %st = "arith.constant"() <{value = 50 : i8}> : () -> i8
    %n0 = "arith.constant"() <{value = 0 : i8}> : () -> i8
    %one = "arith.constant"() <{value = 1 : i8}> : () -> i8
    %n = "scf.for"(%lb, %ub, %st, %n0) ({
    ^bb0(%i: i8, %acc: i8):
      %next = "arith.addi"(%acc, %one) : (i8, i8) -> i8
      "scf.yield"(%next) : (i8) -> ()
    }) UNSIGNED : (i8, i8, i8, i8) -> i8
    "func.return"(%n) : (i8) -> ()
  }) : () -> ()
}) : () -> ()
"""


def _rounds(unsigned: bool, reader: int) -> int:
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    text = _LOOP.replace("UNSIGNED", "{unsignedCmp}" if unsigned else "")
    module = [read_fast(text), parse_module(text)][reader]
    assert module is not None
    [n] = _Machine(module, SimulatedRuntime()).call_function("f", [])
    return int(n)


@pytest.mark.parametrize("reader", [0, 1], ids=["fast", "xdsl"])
def test_unsigned_bound_above_the_signed_range_runs_its_rounds(reader: int) -> None:
    assert _rounds(True, reader) == 4  # 0, 50, 100, 150 <u 200


@pytest.mark.parametrize("reader", [0, 1], ids=["fast", "xdsl"])
def test_signed_reading_of_the_same_bound_runs_none(reader: int) -> None:
    assert _rounds(False, reader) == 0  # 0 <s -56 is false


@pytest.mark.parametrize(("unsigned", "rounds"), [(True, 4), (False, 0)])
def test_the_source_interpreter_reads_the_bound_the_same_way(unsigned: bool, rounds: int) -> None:
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
    from gpu_alloc_verify.oracles.source_xdsl.machine import run
    from gpu_alloc_verify.verify.ir import parse as mlir

    head = '"scf.for"(%lb, %ub, %st, %n0)'
    text = _LOOP.replace("UNSIGNED", "").replace(
        head, f"{head} <{{unsignedCmp}}>" if unsigned else head)
    module = mlir.parse(text,
                        side="source", reader="xdsl", opaque=False)
    fn = next(iter(module.body.block.ops))
    got = run(module, fn, {}, [], SimulatedRuntime(), {})
    assert got.status == "ok", got.reason
    [n] = got.returned
    assert int(getattr(n, "value", n).data if hasattr(n, "value") else n) & 0xFF == rounds
