"""Real lowered code, run natively on the C shim, makes the interpreter's calls."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.campaign import sample_programs
from gpu_alloc_verify.oracles.lowered_interp import run_functions
from gpu_alloc_verify.oracles.native import (
    ENTRY,
    NativeRunner,
    NativeToolchain,
    add_entry,
    entry_function,
    parse_shim_trace,
)
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem


def test_parse_shim_trace():
    text = (
        "mgpuStreamCreate = 0x55d0\n"
        "mgpuMemAlloc i:64 p:(nil) i:1 = 0x7f00\n"
        "mgpuMemset32 p:0x7f04 i:5 i:15 p:0x55d0\n"
        "garbage line\n"
    )
    calls = parse_shim_trace(text)
    assert [(c.callee, c.args, c.kinds, c.result) for c in calls] == [
        ("mgpuStreamCreate", (), "", 0x55D0),
        ("mgpuMemAlloc", (64, 0, 1), "ipi", 0x7F00),
        ("mgpuMemset32", (0x7F04, 5, 15, 0x55D0), "piip", None),
    ]


def test_entry_function_passes_typed_constants():
    text = entry_function([("f0", [("i1", 1), ("index", 3)])])
    assert f"llvm.func @{ENTRY}()" in text
    assert "llvm.mlir.constant(1 : i1) : i1" in text
    assert "llvm.mlir.constant(3 : i64) : i64" in text
    assert "llvm.call @f0(%a0, %a1) : (i1, i64) -> ()" in text
    generic = '"builtin.module"() ({\n  "llvm.func"() ({\n  }) : () -> ()\n}) : () -> ()\n'
    assert add_entry(generic, []).index(ENTRY) < add_entry(generic, []).rindex("})")


@pytest.fixture(scope="module")
def runner():
    try:
        tools = NativeToolchain.find()
    except EnvironmentProblem as e:
        pytest.skip(str(e))
    with NativeRunner(tools) as r:
        yield r


@pytest.mark.slow
def test_native_trace_equals_interpreter_trace(runner, mlir_opt_19):
    progs = sample_programs(16, seed=7)
    outcomes = mlir_opt_19.lower_batch(progs)
    checked = 0
    for program, lowered in zip(progs, outcomes, strict=True):
        assert lowered.status == "ok", lowered.diagnostics
        fn = program.functions[0]
        for flip in (False, True):
            typed = [(a.type, int(flip) if a.type == "i1" else 3) for a in fn.args]
            native = runner.run(lowered.lowered, [(fn.name, typed)])
            assert native.status == "ok", native.detail
            interp = run_functions(lowered.lowered, [(fn.name, [v for _, v in typed])],
                                   SimulatedRuntime())
            assert interp.status == "ok", interp.reason
            assert native.trace == interp.trace, program.to_mlir()
            checked += len(native.trace)
            if not any(a.type == "i1" for a in fn.args):
                break
    assert checked > 100  # the programs make real use of the runtime


def test_native_run_reports_a_bad_module(runner):
    result = runner.run('"builtin.module"() ({\n  "bogus.op"() : () -> ()\n}) : () -> ()\n',
                        [])
    assert result.status == "pipeline-failed" and result.detail
