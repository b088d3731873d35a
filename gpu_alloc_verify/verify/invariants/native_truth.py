"""A witness run again natively: the lowered module JIT-run on the C shim.

`run_natively` finishes the lowered module to LLVM IR, runs the function
with the same inputs as an `Execution` (memref arguments: real buffers from
the shim's `mgpuShimBuffer`, passed under the calling convention), requires
its calls to be the interpreter's call for call, and replays them on the
checking runtime (`oracles.replay`), so what the real code did to its
handles is judged with the wrappers' semantics.
"""

from __future__ import annotations

import atexit
from dataclasses import replace
from math import prod
from typing import Any

from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE
from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES
from gpu_alloc_verify.oracles.lowered_interp import LoweredRun
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import argument_sizes
from gpu_alloc_verify.verify.invariants.ground_truth import Execution
from gpu_alloc_verify.verify.model.program import MemRefType, Program

_NATIVE: dict[str, Any] = {}  # one runner (one compiled shim) per process


def _native_runner() -> Any:
    """The process's `NativeRunner`, or why there is none (a string)."""
    if "runner" not in _NATIVE:
        from gpu_alloc_verify.oracles.native import NativeRunner
        from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

        try:
            runner = NativeRunner()
            atexit.register(runner.close)
            _NATIVE["runner"] = runner
        except EnvironmentProblem as e:
            _NATIVE["runner"] = str(e)
    return _NATIVE["runner"]


def native_arguments(program: Program, ex: Execution) -> list[tuple[str, int]] | str:
    """The entry function's arguments for `ex`'s inputs under the calling
    convention (a memref: a fresh buffer, its alias, offset 0, sizes and
    row-major strides), or why they cannot be passed natively."""
    fn = next(f for f in program.functions if f.name == ex.function)
    out: list[tuple[str, int]] = []
    for a in fn.args:
        if isinstance(a.type, MemRefType):
            sizes = argument_sizes(a.type, DEFAULT_SIZE)
            strides = [prod(sizes[d + 1:]) for d in range(len(sizes))]
            out.append(("buffer", prod(sizes) * ELEM_BYTES[a.type.elem]))
            out += [("alias", len(out) - 1), ("index", 0)]
            out += [("index", s) for s in (*sizes, *strides)]
        elif a.type == "i1":
            out.append(("i1", int(bool(ex.inputs[a.name]))))
        elif a.type in ("index", "i64"):
            value = ex.inputs[a.name]
            if not isinstance(value, int):
                return f"argument {a.name} is {value!r}, not an integer"
            out.append(("index", value))
        else:
            return f"a {a.type} argument ({a.name}) is not passed natively"
    return out


def run_natively(program: Program, ex: Execution, lowered_text: str, profile: str
                 ) -> Execution | str:
    """`ex` again, natively: the lowered module JIT-run on the C shim with the
    same inputs, its calls (which must be the interpreter's, call for call)
    replayed on the checking runtime.  Or why it cannot be."""
    from gpu_alloc_verify.oracles.replay import replay
    from gpu_alloc_verify.verify.ir.parse import opaque_pointers

    if not ex.ran or ex.lowered is None:
        return ex.why_not or "the interpreter did not run it"
    runner = _native_runner()
    if isinstance(runner, str):
        return runner
    args = native_arguments(program, ex)
    if isinstance(args, str):
        return args
    run = runner.run(opaque_pointers(lowered_text), [(ex.function, args)])
    if run.status != "ok":
        first = (run.detail.strip().splitlines() or [""])[0][:200]
        return f"the native run failed ({run.status}: {first})"
    interp = ex.lowered
    if run.trace != interp.trace:
        k = next((i for i, (a, b) in enumerate(zip(run.trace, interp.trace, strict=False))
                  if a != b), min(len(run.trace), len(interp.trace)))
        return (f"the native run's calls differ from the interpreter's at call {k + 1} "
                f"({len(run.trace)} native, {len(interp.trace)} interpreted)")
    locs = [c.loc for c in interp.raw_trace]
    raw = [replace(c, loc=loc) for c, loc in zip(run.raw_trace, locs, strict=True)]
    done = replay(raw, SimulatedRuntime(profile, 0), locs)
    native = LoweredRun("ok", done.outcome, run.trace, raw)
    return Execution(ex.function, ex.inputs, native, ex.source, arg_order=ex.arg_order)
