"""The small integers a runtime defines as streams (`RuntimeProfile.
special_streams`): cuda.h's CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD
(2), HIP's hipStreamPerThread (2); none on SYCL, whose wrappers dereference
a `sycl::queue*`.  Such a value is a stream to every call but
mgpuStreamDestroy, never an event, and a queue of its own (ordered with
itself only, like the null stream).  Each program is judged by the analysis
alone and run on the checking runtime: the two must agree."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.verify.invariants.ground_truth import execute, observe
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.invariants.truth_inputs import boundary_inputs
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.source.of_program import source_facts
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.builders import DECLS, generic

CONTRACT, ORDER = "runtime-contract", "async-order"
ONE_STREAM = """
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}
"""
# Case 82's source: a memset on a new stream, a host wait, a host read.
MEMSET = """
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<16xf32>, f32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %v = memref.load %m[%c0] : memref<16xf32> loc("op5")
  return
}
"""


def _const(name: str, n: int, loc: str = "op2") -> str:
    return (f'    %k{name} = llvm.mlir.constant({n} : i64) : i64 loc("{loc}")\n'
            f'    %{name} = llvm.inttoptr %k{name} : i64 to !llvm.ptr loc("{loc}")\n')


def _call(callee: str, *args: str, loc: str = "op2") -> str:
    types = ", ".join("!llvm.ptr" for _ in args)
    return f'    llvm.call @{callee}({", ".join(args)}) : ({types}) -> () loc("{loc}")\n'


def _handles(body: str) -> str:
    """A created stream and event around `body` (which may use %s, %e, %p)."""
    return ('  llvm.func @main() {\n'
            '    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")\n'
            '    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")\n'
            + body + _call("mgpuEventDestroy", "%e") + _call("mgpuStreamSynchronize", "%s")
            + _call("mgpuStreamDestroy", "%s") + '    llvm.return\n  }\n')


def _memset(body: str) -> str:
    """Case 82's lowering with the memset on %q (defined by `body`, before it)
    and `wait` (calls at op4) in place of its synchronize."""
    return f"""  llvm.func @main() {{
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr \
loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
{body}    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
{{wait}}    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }}
"""


def _both(source: str, funcs: str, invariant: str, runtime: str) -> tuple[str, list[str]]:
    """(the analysis's verdict, with no execution behind it; what running the
    lowered code on the checking runtime shows broken)."""
    program = program_from_text(source)
    lowered = generic("module {\n" + funcs + DECLS + "}\n")
    verdict = judge(program, LoweringOutcome("ok", lowered=lowered), "hand-written",
                    CheckOptions(runtime=runtime, truth=None)).results[invariant].verdict
    facts, seen = source_facts(program), []
    for inputs in boundary_inputs(program, "main"):
        o = observe(invariant, execute(program, lowered, "main", inputs, runtime), facts)
        assert o.decided, o.why_not
        seen += o.seen
    return verdict, seen


def _agree(source: str, funcs: str, invariant: str, runtime: str, verdict: str) -> list[str]:
    got, seen = _both(source, funcs, invariant, runtime)
    assert got == verdict, (got, seen)
    assert bool(seen) == (verdict == "violated"), seen
    return seen


@pytest.mark.parametrize(("runtime", "n", "verdict"), [
    ("cuda", 1, "holds"), ("cuda", 2, "holds"), ("cuda", 3, "violated"),
    ("cuda", 7, "violated"), ("cuda", 0x10, "violated"),
    ("hip", 1, "violated"), ("hip", 2, "holds"), ("hip", 3, "violated"),
    ("sycl", 1, "violated"), ("sycl", 2, "violated"),
])
def test_a_small_integer_is_a_stream_where_the_runtime_defines_it(
        runtime: str, n: int, verdict: str) -> None:
    """As the stream of a synchronize, an event record and a stream wait."""
    body = (_const("p", n) + _call("mgpuStreamSynchronize", "%p")
            + _call("mgpuEventRecord", "%e", "%p") + _call("mgpuStreamWaitEvent", "%p", "%e"))
    seen = _agree(ONE_STREAM, _handles(body), CONTRACT, runtime, verdict)
    assert all("invalid-handle" in s for s in seen), seen


@pytest.mark.parametrize(("runtime", "n"), [("cuda", 1), ("cuda", 2), ("hip", 2)])
def test_destroying_a_special_stream_is_violated(runtime: str, n: int) -> None:
    seen = _agree(ONE_STREAM, _handles(_const("p", n) + _call("mgpuStreamDestroy", "%p")),
                  CONTRACT, runtime, "violated")
    assert any("own stream" in s for s in seen), seen


@pytest.mark.parametrize("callee", ["mgpuEventSynchronize", "mgpuEventDestroy"])
@pytest.mark.parametrize("n", [1, 2])
def test_a_special_stream_is_no_event(callee: str, n: int) -> None:
    _agree(ONE_STREAM, _handles(_const("p", n) + _call(callee, "%p")), CONTRACT, "cuda",
           "violated")


@pytest.mark.parametrize(("runtime", "q", "wait", "verdict"), [
    # Ordered with itself: the synchronize of that stream holds the host.
    # (cuda only: hip's mgpuMemAlloc ignores host_shared, so the host read
    # is of device memory there.)
    ("cuda", 1, 1, "holds"), ("cuda", 2, 2, "holds"),
    # A queue of its own: another stream's synchronize orders nothing.
    ("cuda", 1, 2, "violated"), ("cuda", 1, "s", "violated"), ("cuda", 1, 0, "violated"),
    # 3 is no stream: the memset never runs.
    ("cuda", 3, 3, "violated"),
])
def test_a_special_stream_orders_its_own_work(runtime: str, q: int, wait: int | str,
                                              verdict: str) -> None:
    sync = "%s" if wait == "s" else "%w"
    funcs = _memset(_const("q", q)).replace(
        "{wait}", ("" if wait == "s" else _const("w", wait, "op4"))
        + _call("mgpuStreamSynchronize", sync, loc="op4"))
    _agree(MEMSET, funcs, ORDER, runtime, verdict)


def test_a_refused_destroy_ends_nothing() -> None:
    """cuStreamDestroy(CU_STREAM_LEGACY) fails: work on it still runs, and
    its synchronize still holds the host (async-order), while the destroy
    itself breaks the contract."""
    funcs = _memset(_const("q", 1)).replace(
        "{wait}", _call("mgpuStreamDestroy", "%q", loc="op4")
        + _call("mgpuStreamSynchronize", "%q", loc="op4"))
    _agree(MEMSET, funcs, ORDER, "cuda", "holds")
    _agree(MEMSET, funcs, CONTRACT, "cuda", "violated")
