"""What a program could see: a launch of no thread is no observable (issue
45), a bad launch of a negative size still is; and the gpu ops a lowering
left in host code that no lowered run takes are named."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc_verify.oracles.differential import normalize
from gpu_alloc_verify.oracles.kernel_api import Param
from gpu_alloc_verify.oracles.lowered_interp import parse_module
from gpu_alloc_verify.oracles.lowered_xdsl.gpu_ops import unrunnable_gpu_ops
from gpu_alloc_verify.oracles.runtime import BAD_LAUNCH, Outcome, RuntimeErrorRecord
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime


def _errors(*dims: int) -> list[list[str]]:
    """The observable errors of a bad launch of grid dims[:3], block dims[3:];
    its worded detail says nothing numeric, so only `dims` can decide."""
    rec = RuntimeErrorRecord(BAD_LAUNCH, "launch @k", "op3", "a bad launch", dims)
    return normalize(Outcome("cuda", errors=[rec]))["errors"]


def test_a_launch_with_a_zero_dimension_is_not_observable() -> None:
    assert _errors(0, 1, 1, 1, 1, 1) == []
    assert _errors(4, 1, 1, 1, 0, 1) == []


def test_a_negative_launch_dimension_stays_an_error() -> None:
    assert _errors(-1, 1, 1, 1, 1, 1) == [[BAD_LAUNCH, "op3"]]


@dataclass
class _Kernel:
    """A kernel a bad launch never runs (the runtime refuses it first)."""

    name: str = "k"
    params: tuple[Param, ...] = ()
    reads: frozenset[int] = frozenset()
    writes: frozenset[int] = frozenset()
    cuda: str | None = None

    def run(self, grid: object, block: object, args: object, memory: object) -> None:
        raise AssertionError("a launch of no thread ran")


def test_the_checked_runtime_records_a_bad_launch_s_dimensions() -> None:
    rt = SimulatedRuntime("cuda")
    rt.launch(_Kernel(), (4, 0, 1), (-2, 1, 1), [], rt.stream_create())
    [rec] = rt.errors
    assert (rec.kind, rec.dims) == (BAD_LAUNCH, (4, 0, 1, -2, 1, 1))


LEFT = """
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes =
        array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index,
         %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      "gpu.terminator"() : () -> ()
    }) : (index, index, index, index, index, index) -> () loc("f.mlir":4:3)
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_an_un_outlined_launch_is_named_once_with_its_location() -> None:
    assert unrunnable_gpu_ops(parse_module(LEFT)) == [("gpu.launch", "f.mlir:4:3")]
