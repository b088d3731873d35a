"""Kernel programs run natively: `gpu.launch_func` reaches the shim as
`mgpuLaunchKernel`, traced as ("launch", (gx, gy, gz, bx, by, bz, stream)).

The lowered modules come from the real `mlir-opt` (19 and 22, default
pipeline `gpu.module(convert-gpu-to-nvvm),gpu-to-llvm`); `oracles.native`
serializes the `gpu.module` to NVVM bitcode and the translation emits the
module load / launch calls.  The shim runs no device code.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.oracles.mgpu_calls import RawCall, normalize_trace
from gpu_alloc_verify.oracles.native import (
    NativeRunner,
    NativeToolchain,
    entry_function,
    has_kernels,
    parse_shim_trace,
    split_trace,
)
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE, resolve_mlir_opt
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.model.kernels import kernel_ref
from gpu_alloc_verify.verify.model.program import (
    Alloc,
    Arg,
    Dealloc,
    Dim,
    Function,
    Launch,
    Memcpy,
    MemRefType,
    Program,
    Wait,
)

F32 = MemRefType((16,), "f32")
DYN = MemRefType((None,), "f32")
GRID = MemRefType((4, 4), "i32")


# -- without tools --------------------------------------------------------------------------


def test_launch_is_traced_like_the_interpreter_and_setup_is_dropped():
    text = (
        "mgpuModuleLoad p:0x7000 i:2416 = 0x5000\n"
        "mgpuStreamCreate = 0x55d0\n"
        "mgpuModuleGetFunction p:0x5000 = 0x5100\n"
        "mgpuLaunchKernel p:0x5100 i:2 i:1 i:1 i:8 i:1 i:1 i:0 p:0x55d0 i:6\n"
        "mgpuLaunchKernel p:0x5100 i:1 i:1 i:1 i:4 i:4 i:1 i:0 p:(nil) i:3\n"
        "mgpuModuleUnload p:0x5000\n"
    )
    calls, setup = split_trace(parse_shim_trace(text))
    assert [c.callee for c in setup] == ["mgpuModuleLoad", "mgpuModuleGetFunction",
                                         "mgpuModuleUnload"]
    assert calls[1] == RawCall("launch", (2, 1, 1, 8, 1, 1, 0x55D0), "iiiiiip", None)
    assert normalize_trace(calls) == [
        ("mgpuStreamCreate", ("-> s0",)),
        ("launch", (2, 1, 1, 8, 1, 1, "s0")),
        ("launch", (1, 1, 1, 4, 4, 1, "null")),
    ]


def test_has_kernels_in_custom_and_generic_form():
    assert has_kernels("module {\n  gpu.module @kernels {\n  }\n}")
    assert has_kernels('"builtin.module"() ({\n  "gpu.module"() ({\n  }) : () -> ()\n})')
    assert not has_kernels("module {\n  llvm.func @f0() {\n  }\n}")


def test_entry_function_passes_pointers():
    text = entry_function([("f0", [("ptr", 0), ("index", 40)])])
    assert "%p0 = llvm.inttoptr %a0 : i64 to !llvm.ptr" in text
    assert "llvm.call @f0(%p0, %a1) : (!llvm.ptr, i64) -> ()" in text


# -- with the real tools --------------------------------------------------------------------


def kernel_program() -> Program:
    """Async launches on a dependency's stream and on a new one, a grid from
    `memref.dim`, a 2-D block, a sync launch; allocs, a copy and a free."""
    scale, add = kernel_ref("scale", F32), kernel_ref("add", DYN)
    fill = kernel_ref("fill", GRID)
    body = (
        Wait("op1", "%t1", ()),
        Alloc("op2", "%m1", "%t2", ("%t1",), False, F32),
        Launch("op3", "%t3", ("%t2",), scale, ("%m1",), 2, (2, 1, 1), (8, 1, 1)),
        Dim("op4", "%d1", "%buf0", DYN, 0),
        Launch("op5", "%t4", (), add, ("%buf0", "%buf0", "%buf0"), None, ("%d1", 1, 1),
               (64, 1, 1)),
        Wait("op6", None, ("%t4",)),
        Alloc("op7", "%m2", "%t5", ("%t3",), False, F32),
        Memcpy("op8", "%t6", ("%t5",), "%m2", "%m1", F32),
        Dealloc("op9", "%t7", ("%t6",), "%m1", F32),
        Wait("op10", None, ("%t7",)),
        Launch("op11", None, (), fill, ("%buf1",), 3, (1, 1, 1), (4, 4, 1)),
    )
    return Program((Function("f0", (Arg("%buf0", DYN), Arg("%buf1", GRID)), body),))


# f0's lowered arguments: the descriptors of %buf0 (memref<?xf32>, 40 elements)
# and %buf1 (memref<4x4xi32>); the shim never touches their memory.
CALLS = [("f0", [("ptr", 0), ("ptr", 0), ("index", 0), ("index", 40), ("index", 1),
                 ("ptr", 0), ("ptr", 0), ("index", 0), ("index", 4), ("index", 4),
                 ("index", 4), ("index", 1)])]
EXPECTED = [
    ("mgpuStreamCreate", ("-> s0",)),  # op1
    ("mgpuMemAlloc", (64, "s0", 0, "-> m0")),  # op2
    ("launch", (2, 1, 1, 8, 1, 1, "s0")),  # op3: on its dependency's stream
    ("mgpuStreamCreate", ("-> s1",)),  # op5: no dependency, a new stream
    ("launch", (40, 1, 1, 64, 1, 1, "s1")),  # grid from memref.dim
    ("mgpuStreamSynchronize", ("s1",)),  # op6
    ("mgpuStreamDestroy", ("s1",)),
    ("mgpuMemAlloc", (64, "s0", 0, "-> m1")),  # op7
    ("mgpuMemcpy", ("m1", "m0", 64, "s0")),  # op8
    ("mgpuMemFree", ("m0", "s0")),  # op9
    ("mgpuStreamSynchronize", ("s0",)),  # op10
    ("mgpuStreamDestroy", ("s0",)),
    # op11, sync: the launch_func has no stream; its translation makes one
    ("mgpuStreamCreate", ("-> s2",)),
    ("launch", (1, 1, 1, 4, 4, 1, "s2")),
    ("mgpuStreamSynchronize", ("s2",)),
    ("mgpuStreamDestroy", ("s2",)),
]


def _toolchain(version: int) -> NativeToolchain:
    try:
        return NativeToolchain.find(version)
    except EnvironmentProblem as e:
        pytest.skip(str(e))


def _lower(version: int, program: Program) -> str:
    if find_mlir_opt(version) is None:
        pytest.skip(f"mlir-opt-{version} not installed (apt-get install mlir-{version}-tools)")
    lowering = resolve_mlir_opt(f"mlir-opt-{version}", DEFAULT_PIPELINE)
    (outcome,) = lowering.lower_batch([program])
    assert outcome.status == "ok", outcome.diagnostics
    assert has_kernels(outcome.lowered)
    return outcome.lowered


@pytest.mark.parametrize(("lowered_by", "run_by"), [(22, 22), (19, 19), (19, 22)])
def test_launches_reach_the_shim_in_order(lowered_by: int, run_by: int):
    lowered = _lower(lowered_by, kernel_program())
    tools = _toolchain(run_by)
    with NativeRunner(tools, reprint_opt=find_mlir_opt(lowered_by)) as runner:
        if runner.kernel_problem():
            pytest.skip(f"LLVM {run_by}: {runner.kernel_problem()}")
        result = runner.run(lowered, CALLS)
    assert result.status == "ok", result.detail
    assert result.trace == EXPECTED
    setup = [c.callee for c in result.setup]
    assert setup.count("mgpuModuleGetFunction") == 3  # one look-up per launch
    assert setup.count("mgpuModuleLoad") == setup.count("mgpuModuleUnload") >= 1


def test_a_toolchain_without_gpu_module_serialization_says_unsupported(tmp_path: Path):
    """An mlir-opt that knows no `gpu-module-to-binary` (as before LLVM 18)."""
    tools = _toolchain(22)
    fake = tmp_path / "mlir-opt-old"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "if any('gpu-module-to-binary' in a for a in sys.argv):\n"
        "    sys.exit(\"<unknown>: error: 'gpu-module-to-binary' does not refer to a "
        "registered pass\")\n"
        f"os.execv({tools.opt!r}, [{tools.opt!r}, *sys.argv[1:]])\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    old = NativeToolchain(str(fake), tools.translate, tools.runner, tools.cc)
    lowered = _lower(22, kernel_program())
    with NativeRunner(old, reprint_opt=find_mlir_opt(22)) as runner:
        result = runner.run(lowered, CALLS)
        assert result.status == "unsupported"
        assert "does not refer to a registered pass" in result.detail
        # programs without kernels still run
        assert runner.run('"builtin.module"() ({\n}) : () -> ()\n', []).status == "ok"


def _generated_kernel_programs(n: int) -> list[Program]:
    from gpu_alloc_verify.generators.programs import GenConfig
    from tests.conftest import collect_programs

    cfg = GenConfig(max_ops=10, memref_args=False, scalar_args=False, results=False,
                    memory_spaces=False).supported_by(19)
    progs = [p for p in collect_programs(40, cfg) if p.kernels][:n]
    assert progs
    return progs


@pytest.mark.slow
def test_generated_kernel_programs_run_natively():
    tools = _toolchain(22)
    progs = _generated_kernel_programs(6)
    launches = 0
    with NativeRunner(tools, reprint_opt=find_mlir_opt(22)) as runner:
        for program in progs:
            lowered = _lower(22, program)
            fn = program.functions[0]
            typed = [(a.type, 1 if a.type == "i1" else 3) for a in fn.args]
            result = runner.run(lowered, [(fn.name, typed)])
            assert result.status == "ok", (result.detail, program.to_mlir())
            launches += sum(1 for callee, _ in result.trace if callee == "launch")
    assert launches >= len(progs)


@pytest.mark.slow
@pytest.mark.parametrize("lowered_by", [22, 19])
def test_native_trace_equals_interpreter_trace_with_kernels(lowered_by: int):
    """Turns on by itself once `oracles.lowered_interp` runs gpu.launch_func
    (with the catalogue kernels `oracles.differential.program_kernels` gives)."""
    from gpu_alloc_verify.oracles.lowered_interp import run_functions
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    try:
        from gpu_alloc_verify.oracles.differential import program_kernels
    except ImportError as e:
        pytest.skip(f"no kernels for the lowered interpreter yet: {e}")
    progs = _generated_kernel_programs(6)
    pairs = []
    for program in progs:
        lowered = _lower(lowered_by, program)
        fn = program.functions[0]
        typed = [(a.type, 1 if a.type == "i1" else 3) for a in fn.args]
        try:
            kernels = program_kernels(program)
        except ImportError as e:
            pytest.skip(f"no kernels for the lowered interpreter yet: {e}")
        interp = run_functions(lowered, [(fn.name, [v for _, v in typed])],
                               SimulatedRuntime(), kernels)
        if interp.status != "ok":
            pytest.skip(f"the lowered interpreter cannot run kernel programs yet: "
                        f"{interp.status}: {interp.reason}")
        pairs.append((program, lowered, typed, interp.trace))
    checked = 0
    with NativeRunner(_toolchain(22), reprint_opt=find_mlir_opt(lowered_by)) as runner:
        for program, lowered, typed, trace in pairs:
            native = runner.run(lowered, [(program.functions[0].name, typed)])
            assert native.status == "ok", native.detail
            assert native.trace == trace, program.to_mlir()
            checked += sum(1 for callee, _ in trace if callee == "launch")
    assert checked >= len(pairs)
