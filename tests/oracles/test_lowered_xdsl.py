"""The lowered interpreter on xDSL's interpreter framework (issue 39, item 5):
one implementation per op, one external function per runtime call, an op
nobody implements ending the run as unsupported, naming it."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.lowered_interp import (
    HANDLED_OPS,
    _Machine,
    parse_module,
    read_fast,
    run_function,
)
from gpu_alloc_verify.oracles.mgpu_calls import (
    SIGNATURES,
    SIMULATED,
    RuntimeCalls,
    UnknownCall,
    dispatch,
)
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.ir.kernel_text import (
    KernelTextUnsupported,
    generic_gpu_func,
    has_custom_gpu_func,
)

_MODULE = """"builtin.module"() ({
  "func.func"() <{function_type = () -> i64, sym_name = "f"}> ({
    %0 = "arith.constant"() <{value = 7 : i64}> : () -> i64
    %1 = "arith.constant"() <{value = 5 : i64}> : () -> i64
    %2 = "OP"(%0, %1) : (i64, i64) -> i64
    "func.return"(%2) : (i64) -> ()
  }) : () -> ()
}) : () -> ()
"""


def _readers(op: str) -> list[object]:
    text = _MODULE.replace("OP", op)
    fast = read_fast(text)
    assert fast is not None
    return [fast, parse_module(text)]


@pytest.mark.parametrize("reader", [0, 1], ids=["fast", "xdsl"])
def test_an_implemented_op_runs_on_either_reader(reader: int) -> None:
    module = _readers("arith.subi")[reader]
    rt = SimulatedRuntime()
    assert run_function(module, "f", [], rt).status == "ok"
    machine = _Machine(module, SimulatedRuntime())
    assert machine.call_function("f", []) == [2]


@pytest.mark.parametrize("reader", [0, 1], ids=["fast", "xdsl"])
@pytest.mark.parametrize(("op", "reason"), [("llvm.freeze2", "op llvm.freeze2"),
                                            ("gpu.shuffle", "residual gpu.shuffle")])
def test_an_op_nobody_implements_is_unsupported_naming_it(reader: int, op: str,
                                                          reason: str) -> None:
    run = run_function(_readers(op)[reader], "f", [], SimulatedRuntime())
    assert (run.status, run.reason) == ("unsupported", reason)


def test_handled_ops_are_what_is_registered() -> None:
    module = _readers("arith.addi")[0]
    assert _Machine(module, SimulatedRuntime()).handled() == HANDLED_OPS
    assert {"llvm.call", "llvm.load", "gpu.launch_func", "gpu.alloc", "cf.cond_br"} \
        <= HANDLED_OPS


def test_the_runtime_calls_are_the_simulated_set() -> None:
    assert SIMULATED == {name for name, _ in RuntimeCalls._ext_impls()}
    assert SIMULATED <= set(SIGNATURES)


def test_dispatch_runs_a_runtime_call_outside_an_interpreter() -> None:
    rt = SimulatedRuntime()
    stream = dispatch(rt, "mgpuStreamCreate", [], "")
    assert isinstance(stream, int) and stream
    assert dispatch(rt, "mgpuStreamDestroy", [stream], "p") is None
    with pytest.raises(UnknownCall, match="@mgpuNothing with argument kinds 'p'"):
        dispatch(rt, "mgpuNothing", [0], "p")


def test_a_custom_form_kernel_reads_in_generic_form() -> None:
    text = ("gpu.module @k {\n  gpu.func @f(%a: memref<4xf32>) kernel {\n"
            "    %x = gpu.thread_id x\n    gpu.return\n  }\n}\n")
    assert has_custom_gpu_func(text)
    generic = generic_gpu_func(text, "f")
    assert '"gpu.thread_id"() {dimension = #gpu<dim x>}' in generic
    assert '"gpu.return"() : () -> ()' in generic
    with pytest.raises(KernelTextUnsupported, match="uses gpu.barrier"):
        generic_gpu_func(text.replace("gpu.return", "gpu.barrier\n    gpu.return"), "f")
    with pytest.raises(ValueError, match="no gpu.func @g"):
        generic_gpu_func(text, "g")
