"""Source-level and lowered-IR interpreters on small hand-written inputs."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.lowered_interp import run_function as run_lowered
from gpu_alloc_verify.oracles.mgpu_calls import RawCall, normalize_trace
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import element_bytes, run_function
from gpu_alloc_verify.verify.model.program import (
    Alloc,
    Arg,
    Dealloc,
    For,
    Function,
    HostLoad,
    HostStore,
    If,
    Memcpy,
    MemRefType,
    Memset,
    Wait,
)

I32 = MemRefType((16,), "i32")


def test_source_memset_then_host_load():
    fn = Function("f0", (), (
        Alloc("op1", "%m1", None, (), True, I32),
        Wait("op2", "%t1"),
        Memset("op3", "%t2", ("%t1",), "%m1", I32, 5),
        Wait("op4", None, ("%t2",)),
        HostLoad("op5", "%v", "%m1", I32),
    ))
    run = run_function(fn, {}, SimulatedRuntime())
    assert run.status == "ok" and run.unawaited == []
    out = run.outcome
    assert out is not None and out.errors == []
    assert [(h.loc, h.value) for h in out.host_accesses] == [("op5", "05000000")]
    assert out.allocations[0].contents == "05000000*16"
    assert out.live_streams == [] and out.live_events == []


def test_source_branches_loops_and_unawaited_tokens():
    f16 = MemRefType((None,), "f16")
    fn = Function("f0", (Arg("%c", "i1"), Arg("%n", "index")), (
        Alloc("op1", "%m1", None, (), True, f16, ("%n",)),
        If("op2", "%c", (HostStore("op3", "%m1", f16, 2),), (HostStore("op4", "%m1", f16, 3),)),
        For("op5", "%i", 2, (Wait("op6", "%t1"),)),
    ))
    run = run_function(fn, {"%c": False, "%n": 4}, SimulatedRuntime())
    assert run.outcome is not None
    assert run.outcome.allocations[0].size == 8
    assert [(h.loc, h.value) for h in run.outcome.host_accesses] == [("op4", "0042")]
    assert run.unawaited == ["%t1", "%t1"]


def test_source_memcpy_and_dealloc_follow_their_tokens():
    fn = Function("f0", (), (
        Wait("op1", "%t0"),
        Alloc("op2", "%a", "%t1", ("%t0",), False, I32),
        Alloc("op3", "%b", None, (), True, I32),
        Memset("op4", "%t2", ("%t1",), "%a", I32, 7),
        Memcpy("op5", "%t3", ("%t2",), "%b", "%a", I32),
        Dealloc("op6", "%t4", ("%t3",), "%a", I32),
        Wait("op7", None, ("%t4",)),
    ))
    for profile in ("cuda", "hip", "sycl"):
        out = run_function(fn, {}, SimulatedRuntime(profile)).outcome
        assert out is not None and out.errors == [], profile
        assert [(a.label, a.live) for a in out.allocations] == [("op2#0", False), ("op3#0", True)]
        assert out.allocations[1].contents == "07000000*16"


@pytest.mark.parametrize(("elem", "contents"), [
    ("i8", "ffffffff"), ("i16", "ffffffff*2"), ("f16", "00bc00bc*2"), ("bf16", "80bf80bf*2"),
    ("i32", "ffffffff*4"), ("f32", "000080bf*4"), ("i64", "ffffffff*8"),
    ("f64", "00000000,0000f0bf,00000000,0000f0bf,00000000,0000f0bf,00000000,0000f0bf"),
])
def test_source_memsets_every_element_width(elem, contents):
    t = MemRefType((4,), elem)
    fn = Function("f0", (), (
        Alloc("op1", "%m", None, (), True, t),
        Memset("op2", None, (), "%m", t, -1),
    ))
    run = run_function(fn, {}, SimulatedRuntime())
    assert run.status == "ok" and run.outcome is not None
    assert run.outcome.allocations[0].contents == contents


def test_source_reports_what_it_cannot_model():
    t = MemRefType((None,), "i32")
    fn = Function("f0", (), (Alloc("op1", "%m", None, (), True, t, ("%size0",)),))
    run = run_function(fn, {}, SimulatedRuntime())
    assert run.status == "unsupported" and "%size0" in run.reason


def test_element_bytes():
    assert element_bytes(2, "f16") == b"\x00\x40"
    assert element_bytes(-1, "i32") == b"\xff\xff\xff\xff"


# A gpu-to-llvm style module (generic form, as mlir-opt prints it): a stream,
# a host_shared alloc with a null stream, a memset32 on it, sync, a host load.
LOWERED = """
"builtin.module"() ({
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i1)>,
      linkage = #llvm.linkage<external>, sym_name = "f0", visibility_ = 0 : i64}> ({
  ^bb0(%arg0: i1):
    %0 = "llvm.mlir.constant"() <{value = 0 : index}> : () -> i64
    %1 = "llvm.call"() <{callee = @mgpuStreamCreate, fastmathFlags = #llvm.fastmath<none>}>
        : () -> !llvm.ptr loc("op1")
    %2 = "llvm.mlir.constant"() <{value = 16 : index}> : () -> i64 loc("op2")
    %3 = "llvm.mlir.zero"() : () -> !llvm.ptr loc("op2")
    %4 = "llvm.getelementptr"(%3, %2) <{elem_type = i32,
        rawConstantIndices = array<i32: -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr loc("op2")
    %5 = "llvm.ptrtoint"(%4) : (!llvm.ptr) -> i64 loc("op2")
    %6 = "llvm.mlir.constant"() <{value = 1 : i8}> : () -> i8 loc("op2")
    %7 = "llvm.call"(%5, %3, %6) <{callee = @mgpuMemAlloc, fastmathFlags = #llvm.fastmath<none>}>
        : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %8 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64)> loc("op2")
    %9 = "llvm.insertvalue"(%8, %7) <{position = array<i64: 1>}>
        : (!llvm.struct<(ptr, ptr, i64)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64)> loc("op2")
    %10 = "llvm.mlir.constant"() <{value = 1.0 : f32}> : () -> f32 loc("op3")
    %11 = "llvm.bitcast"(%10) : (f32) -> i32 loc("op3")
    %12 = "llvm.extractvalue"(%9) <{position = array<i64: 1>}>
        : (!llvm.struct<(ptr, ptr, i64)>) -> !llvm.ptr loc("op3")
    "scf.if"(%arg0) ({
      "llvm.call"(%12, %11, %2, %1) <{callee = @mgpuMemset32, fastmathFlags = #llvm.fastmath<none>}>
          : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
      "scf.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "llvm.call"(%1) <{callee = @mgpuStreamSynchronize, fastmathFlags = #llvm.fastmath<none>}>
        : (!llvm.ptr) -> () loc("op4")
    "llvm.call"(%1) <{callee = @mgpuStreamDestroy, fastmathFlags = #llvm.fastmath<none>}>
        : (!llvm.ptr) -> () loc("op4")
    %13 = "llvm.getelementptr"(%12, %0) <{elem_type = i32,
        rawConstantIndices = array<i32: -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr loc("op5")
    %14 = "llvm.load"(%13) : (!llvm.ptr) -> i32 loc("op5")
    "llvm.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_lowered_interpreter_runs_calls_on_the_runtime():
    run = run_lowered(LOWERED, "f0", [1], SimulatedRuntime())
    assert run.status == "ok", run.reason
    assert run.trace == [
        ("mgpuStreamCreate", ("-> s0",)),
        ("mgpuMemAlloc", (64, "null", 1, "-> m0")),
        ("mgpuMemset32", ("m0", 0x3F800000, 16, "s0")),
        ("mgpuStreamSynchronize", ("s0",)),
        ("mgpuStreamDestroy", ("s0",)),
    ]
    assert [c.loc for c in run.raw_trace] == ["op1", "op2", "op3", "op4", "op4"]
    out = run.outcome
    assert out is not None and out.errors == [] and out.live_streams == []
    assert [(h.loc, h.value) for h in out.host_accesses] == [("op5", "0000803f")]
    assert out.allocations[0].kind == "managed"


def test_lowered_interpreter_takes_the_branch_values():
    run = run_lowered(LOWERED, "f0", {"%c": False}, SimulatedRuntime(), arg_names=["%c"])
    assert [c for c, _ in run.trace] == [
        "mgpuStreamCreate", "mgpuMemAlloc", "mgpuStreamSynchronize", "mgpuStreamDestroy"]


def test_residual_gpu_ops_run_with_their_source_meaning():
    """A leftover `gpu.wait async` makes a stream (released at the end, as the
    source's are); handle counts are then not comparable.  A leftover op with
    no source meaning here stops the run, naming it."""
    text = LOWERED.replace('"llvm.return"() : () -> ()',
                           '%t = "gpu.wait"() : () -> !gpu.async.token\n'
                           '    "llvm.return"() : () -> ()')
    run = run_lowered(text, "f0", [1], SimulatedRuntime())
    plain = run_lowered(LOWERED, "f0", [1], SimulatedRuntime())
    assert run.status == "ok" and run.token_residue and not plain.token_residue
    assert run.outcome is not None and plain.outcome is not None
    assert run.outcome.live_streams == plain.outcome.live_streams
    assert run.trace == plain.trace  # residues are not lowered calls
    other = LOWERED.replace('"llvm.return"() : () -> ()',
                            '"gpu.barrier"() : () -> ()\n    "llvm.return"() : () -> ()')
    stopped = run_lowered(other, "f0", [1], SimulatedRuntime())
    assert stopped.status == "unsupported" and "gpu.barrier" in stopped.reason


def test_unknown_callees_and_bad_text_are_reported_not_raised():
    text = LOWERED.replace("@mgpuStreamDestroy", "@mgpuLaunchKernel")
    run = run_lowered(text, "f0", [1], SimulatedRuntime())
    assert run.status == "unsupported" and "mgpuLaunchKernel" in run.reason
    assert run_lowered("not mlir", "f0", [], SimulatedRuntime()).status == "error"


def test_trace_normalization_names_handles_by_creation_order():
    raw = [
        RawCall("mgpuStreamCreate", (), "", 0x50),
        RawCall("mgpuMemAlloc", (16, 0x50, 0), "ipi", 0x1000),
        RawCall("mgpuMemset32", (0x1008, 1, 2, 0x50), "piip", None),
        RawCall("mgpuStreamDestroy", (0x50,), "p", None),
        RawCall("mgpuStreamCreate", (), "", 0x50),  # the same address, a new stream
        RawCall("mgpuStreamSynchronize", (0x50,), "p", None),
    ]
    assert normalize_trace(raw) == [
        ("mgpuStreamCreate", ("-> s0",)),
        ("mgpuMemAlloc", (16, "s0", 0, "-> m0")),
        ("mgpuMemset32", ("m0+8", 1, 2, "s0")),
        ("mgpuStreamDestroy", ("s0",)),
        ("mgpuStreamCreate", ("-> s1",)),
        ("mgpuStreamSynchronize", ("s1",)),
    ]


# Unstructured control flow, as convert-scf-to-cf leaves it: a loop of
# cf.br / cf.cond_br creating and destroying one stream per iteration.
CF_LOOP = """
"builtin.module"() ({
  "llvm.func"() <{function_type = !llvm.func<void (i8)>, sym_name = "g",
      linkage = #llvm.linkage<external>, CConv = #llvm.cconv<ccc>, visibility_ = 0 : i64}> ({
  ^bb0(%n8: i8):
    %n = "llvm.sext"(%n8) : (i8) -> i64
    %zero = "llvm.mlir.constant"() <{value = 0 : i64}> : () -> i64
    %one = "llvm.mlir.constant"() <{value = 1 : i64}> : () -> i64
    "cf.br"(%zero) [^bb1] : (i64) -> ()
  ^bb1(%i: i64):
    %lt = "llvm.icmp"(%i, %n) <{predicate = 2 : i64}> : (i64, i64) -> i1
    "cf.cond_br"(%lt, %i) [^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 1, 0>}>
        : (i1, i64) -> ()
  ^bb2(%j: i64):
    %s = "llvm.call"() <{callee = @mgpuStreamCreate, fastmathFlags = #llvm.fastmath<none>}>
        : () -> !llvm.ptr
    "llvm.call"(%s) <{callee = @mgpuStreamDestroy, fastmathFlags = #llvm.fastmath<none>}>
        : (!llvm.ptr) -> ()
    %next = "llvm.add"(%j, %one) <{overflowFlags = #llvm.overflow<none>}> : (i64, i64) -> i64
    "cf.br"(%next) [^bb1] : (i64) -> ()
  ^bb3:
    "llvm.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_lowered_interpreter_follows_branches_and_sign_extends():
    run = run_lowered(CF_LOOP, "g", [3], SimulatedRuntime())
    assert run.status == "ok", run.reason
    assert [c for c, _ in run.trace] == ["mgpuStreamCreate", "mgpuStreamDestroy"] * 3
    negative = run_lowered(CF_LOOP, "g", [0xFF], SimulatedRuntime())  # i8 -1: no iteration
    assert negative.status == "ok" and negative.trace == []
