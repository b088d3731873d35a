"""Each invariant catches a hand-written buggy lowering and stays quiet on
the correct one; several bugs exist on one path or in one schedule only."""

from __future__ import annotations

import z3

from gpu_alloc_verify.verify.invariants import solver
from gpu_alloc_verify.verify.invariants.common import Findings
from tests.builders import check

BRANCHY_ALLOC = """
func.func @f(%c: i1) {
  scf.if %c {
    %m = gpu.alloc host_shared () : memref<4xf32> loc("op2")
    %t = gpu.wait async loc("op3")
    %t2 = gpu.dealloc async [%t] %m : memref<4xf32> loc("op4")
    gpu.wait [%t2] loc("op5")
  } loc("op1")
  return
}
"""

ALLOC_BODY = """
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
"""


def lowered_branchy(alloc_stream: str, pre: str = "", destroy: str = "",
                    flag: str = "%one") -> str:
    return f"""
  llvm.func @f(%c: i1) {{
    scf.if %c {{
      {ALLOC_BODY}
      {pre}
      %p = llvm.call @mgpuMemAlloc(%sz, {alloc_stream}, {flag})
        : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
      %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
      llvm.call @mgpuMemFree(%p, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
      {destroy or 'llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")'}
    }}
    llvm.return
  }}
"""


NULL = '%z'
ZERO = '%z = llvm.mlir.zero : !llvm.ptr loc("op2")'


def test_sync_alloc_no_stream_holds_for_null_stream() -> None:
    r = check(BRANCHY_ALLOC, lowered_branchy(NULL, ZERO))
    assert r["sync-alloc-no-stream"].verdict == "holds"
    for inv in ("stream-no-leak", "stream-no-use-after-destroy", "host-shared-flag",
                "runtime-contract", "lowering-complete"):
        assert r[inv].verdict in ("holds", "not-applicable"), (inv, r[inv])


def test_sync_alloc_creating_a_stream_is_caught_on_its_branch() -> None:
    pre = '%x = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")'
    r = check(BRANCHY_ALLOC, lowered_branchy("%x", pre))
    res = r["sync-alloc-no-stream"]
    assert res.verdict == "violated"
    assert res.violations[0].counterexample["path"] == {"f:%cond0": True}
    assert "op2" in res.violations[0].marked_calls


def test_stream_leak_only_on_one_path() -> None:
    source = """
func.func @f(%c: i1) {
  %t = gpu.wait async loc("op1")
  scf.if %c {
    gpu.wait [%t] loc("op3")
  } else {
    gpu.wait [%t] loc("op4")
  } loc("op2")
  return
}
"""
    good = """
  llvm.func @f(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    scf.if %c {
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op3")
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")
    } else {
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    }
    llvm.return
  }
"""
    assert check(source, good)["stream-no-leak"].verdict == "holds"
    bad = good.replace('llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")', "")
    res = check(source, bad)["stream-no-leak"]
    assert res.verdict == "violated"
    assert res.violations[0].counterexample["path"] == {"f:%cond0": False}
    assert "destroyed 0 time(s)" in res.violations[0].detail


def test_unawaited_source_token_is_not_charged() -> None:
    source = """
func.func @f() {
  %t = gpu.wait async loc("op1")
  return
}
"""
    lowered = """
  llvm.func @f() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.return
  }
"""
    assert check(source, lowered)["stream-no-leak"].verdict == "holds"


def test_use_after_destroy_and_double_destroy() -> None:
    source = """
func.func @f(%c: i1) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}
"""
    swapped = """
  llvm.func @f(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
"""
    res = check(source, swapped)["stream-no-use-after-destroy"]
    assert res.verdict == "violated" and "mgpuStreamSynchronize" in res.violations[0].detail
    double = """
  llvm.func @f(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    scf.if %c {
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    }
    llvm.return
  }
"""
    res = check(source, double)["stream-no-use-after-destroy"]
    assert res.verdict == "violated"
    assert "destroyed twice" in res.violations[0].detail
    assert res.violations[0].counterexample["path"] == {"f:%cond0": True}
    good = double.replace(
        'scf.if %c {\n      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")\n'
        "    }", "")
    assert check(source, good)["stream-no-use-after-destroy"].verdict == "holds"


EVENT_SOURCE = """
func.func @f(%c: i1) {
  %t1 = gpu.wait async loc("op1")
  scf.if %c {
    %t2 = gpu.wait async [%t1] loc("op3")
    gpu.wait [%t2] loc("op4")
  } loc("op2")
  return
}
"""
# What mlir-opt-19 emits: the event is created eagerly, destroyed in one branch.
EVENT_LOWERED = """
  llvm.func @f(%c: i1) {
    %s0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuEventRecord(%e, %s0) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    scf.if %c {
      %s1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
      llvm.call @mgpuStreamWaitEvent(%s1, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op3")
      llvm.call @mgpuStreamSynchronize(%s1) : (!llvm.ptr) -> () loc("op4")
      llvm.call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> () loc("op4")
    }
    llvm.return
  }
"""


def test_event_leak_on_the_branch_not_taken() -> None:
    res = check(EVENT_SOURCE, EVENT_LOWERED)["event-no-leak"]
    assert res.verdict == "violated"
    assert res.violations[0].counterexample["path"] == {"f:%cond0": False}
    moved = EVENT_LOWERED.replace(
        '    scf.if %c {\n', '    scf.if %c {\n').replace(
        '    llvm.return', '    llvm.return').replace(
        '%e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op3")\n'
        '    llvm.call @mgpuEventRecord(%e, %s0) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")\n'
        '    scf.if %c {\n',
        'scf.if %c {\n'
        '      %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op3")\n'
        '      llvm.call @mgpuEventRecord(%e, %s0) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")\n')
    assert check(EVENT_SOURCE, moved)["event-no-leak"].verdict == "holds"


def test_host_shared_flag_wrong_only_when_select_picks_zero() -> None:
    pre = ('%zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op2")\n'
           '      %f = llvm.select %c, %one, %zero8 : i1, i8 loc("op2")\n      ' + ZERO)
    res = check(BRANCHY_ALLOC, lowered_branchy(NULL, pre, flag="%f"))["host-shared-flag"]
    # Inside `scf.if %c` the select always picks 1: no violation.
    assert res.verdict == "holds"
    pre_bad = '%zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op2")\n      ' + ZERO
    bad = check(BRANCHY_ALLOC, lowered_branchy(NULL, pre_bad, flag="%zero8"))["host-shared-flag"]
    assert bad.verdict == "violated"
    assert "host_shared=0" in bad.violations[0].detail


ORDER_SOURCE = """
func.func @f() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %v = memref.load %m[%c0] : memref<4xi32> loc("op5")
  return
}
"""


def order_lowered(sync: bool) -> str:
    sync_line = ('llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")'
                 if sync else "")
    return f"""
  llvm.func @f() {{
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    {sync_line}
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }}
"""


def test_async_order_dropped_synchronize_gives_a_schedule() -> None:
    assert check(ORDER_SOURCE, order_lowered(sync=True))["async-order"].verdict == "holds"
    res = check(ORDER_SOURCE, order_lowered(sync=False))["async-order"]
    assert res.verdict == "violated"
    cex = res.violations[0].counterexample
    assert "op4" in cex["edge"] and "op3" in cex["edge"] and "op5" in cex["edge"]
    sched = cex["schedule"]
    load = next(s for s in sched if "host.load" in s)
    memset = next(s for s in sched if "mgpuMemset32" in s)
    load_t = int(load.split(":")[0].removeprefix("t="))
    memset_end = int(memset.split(":")[0].split("..")[1])
    assert load_t < memset_end  # the host read ran before the memset finished


HOP_SOURCE = """
func.func @f() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  %t3 = gpu.wait async [%t2] loc("op4")
  gpu.wait [%t3] loc("op5")
  %v = memref.load %m[%c0] : memref<4xi32> loc("op6")
  return
}
"""


def hop_lowered(record_first: bool) -> str:
    """The memset's stream recorded, a second stream told to wait on that
    event, the second stream synchronized, then the read."""
    record = 'llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")'
    wait = 'llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")'
    first, second = (record, wait) if record_first else (wait, record)
    return f"""
  llvm.func @f() {{
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    {first}
    {second}
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }}
"""


def test_async_order_follows_a_synchronized_stream_that_waited_on_an_event() -> None:
    # 19 lowers `gpu.wait async [%t]` then `gpu.wait [..]` this way: the host
    # read is ordered after the memset through the second stream.  Before, the
    # synchronize of a stream with no work of its own ordered nothing: a false alarm.
    assert check(HOP_SOURCE, hop_lowered(record_first=True))["async-order"].verdict == "holds"
    # Fooling it: the event recorded only after the wait was issued; the wait
    # saw no record, so nothing orders the memset before the read.
    res = check(HOP_SOURCE, hop_lowered(record_first=False))["async-order"]
    assert res.verdict == "violated", res


CROSS_SOURCE = """
func.func @f() {
  %cst = arith.constant 1 : i32
  %m, %t1 = gpu.alloc async () : memref<4xi32> loc("op1")
  %n, %t2 = gpu.alloc async () : memref<4xi32> loc("op2")
  %t3 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  %t4 = gpu.memcpy async [%t3, %t2] %n, %m : memref<4xi32>, memref<4xi32> loc("op4")
  gpu.wait [%t4] loc("op5")
  return
}
"""


def cross_lowered(with_event: bool) -> str:
    ev = """
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %a) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")""" if with_event else ""
    return f"""
  llvm.func @f() {{
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %p = llvm.call @mgpuMemAlloc(%sz, %a, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %q = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(1 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %a) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    {ev}
    llvm.call @mgpuMemcpy(%q, %p, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op5")
    llvm.return
  }}
"""


def test_async_order_across_streams_needs_an_event() -> None:
    assert check(CROSS_SOURCE, cross_lowered(True))["async-order"].verdict == "holds"
    res = check(CROSS_SOURCE, cross_lowered(False))["async-order"]
    assert res.verdict == "violated"
    assert "op4 depends on" in res.violations[0].counterexample["edge"]


def test_runtime_contract_depends_on_profile() -> None:
    source = """
func.func @f() {
  %m = gpu.alloc host_shared () : memref<4xf32> loc("op1")
  gpu.dealloc %m : memref<4xf32> loc("op2")
  return
}
"""
    lowered = f"""
  llvm.func @f() {{
    {ALLOC_BODY.replace('op2', 'op1')}
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %p = llvm.call @mgpuMemAlloc(%sz, %z, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %z2 = llvm.mlir.zero : !llvm.ptr loc("op2")
    llvm.call @mgpuMemFree(%p, %z2) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.return
  }}
"""
    assert check(source, lowered, runtime="cuda")["runtime-contract"].verdict == "holds"
    res = check(source, lowered, runtime="sycl")["runtime-contract"]
    assert res.verdict == "violated" and "mgpuMemFree" in res.violations[0].detail
    confused = EVENT_LOWERED.replace("mgpuStreamWaitEvent(%s1, %e)",
                                     "mgpuStreamWaitEvent(%s1, %s0)")
    res = check(EVENT_SOURCE, confused)["runtime-contract"]
    assert res.verdict == "violated" and "event is expected" in res.violations[0].detail


def test_lowering_complete_flags_residue() -> None:
    source = """
func.func @f() {
  %m = gpu.alloc () : memref<4xf32> loc("op1")
  return
}
"""
    left = """
  llvm.func @f() {
    %m = gpu.alloc () : memref<4xf32> loc("op1")
    llvm.return
  }
"""
    res = check(source, left)["lowering-complete"]
    assert res.verdict == "violated" and "gpu.alloc" in res.violations[0].detail
    done = """
  llvm.func @f() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %p = llvm.call @mgpuMemAlloc(%sz, %z, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    llvm.return
  }
"""
    assert check(source, done)["lowering-complete"].verdict == "holds"


def _pigeonhole(n: int) -> z3.BoolRef:
    """n+1 pigeons in n holes: unsatisfiable, and hard for a solver."""
    p = [[z3.Bool(f"p{i}_{j}") for j in range(n)] for i in range(n + 1)]
    each = [z3.Or(*row) for row in p]
    apart = [z3.Or(z3.Not(p[i][j]), z3.Not(p[k][j]))
             for j in range(n) for i in range(n + 1) for k in range(i + 1, n + 1)]
    return z3.And(*each, *apart)


def test_solver_timeout_is_unknown_never_holds() -> None:
    hard = _pigeonhole(11)
    answer = solver.check(hard, timeout_ms=50)
    assert answer.status == "unknown" and answer.reason
    from gpu_alloc_verify.verify.extract.calls import LoweredFacts
    from gpu_alloc_verify.verify.invariants.context import CheckContext
    from gpu_alloc_verify.verify.source.of_program import source_facts
    from tests.builders import program_from_text  # type: ignore[attr-defined]

    program = program_from_text("func.func @f() {\n return\n}\n")
    ctx = CheckContext(program, source_facts(program), LoweredFacts(), None, "",
                       timeout_ms=50)
    f = Findings("stream-no-leak", ctx)
    assert f.query(hard, "hard question", []) is False
    res = f.result()
    assert res.verdict == "unknown" and "hard question" in res.reason
