"""`runtime-contract`'s handle kinds (issue 25; cases 90-99 of the
adversarial suite): a stream or event operand must be a handle of that kind
the runtime created (the null stream where the profile takes it).  An
integer turned into a pointer or a handle of the other kind is a violation;
a pointer the runtime did not create in the module (a caller's argument, a
stack slot) or a value the analysis cannot follow is `unknown`, never
`holds`.  Operands are judged by their role in `runtime_api.SIGNATURES`."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.verify.model.verdicts import CheckResult
from tests.builders import check, check_module
from tests.invariants.test_launch import CREATE, DESTROY, SOURCE, SYNC, lowered

CONTRACT = "runtime-contract"
ONE_STREAM = """
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}
"""
BRANCH = ONE_STREAM.replace("@main()", "@main(%c: i1)")
WITH_INT = ONE_STREAM.replace("@main()", "@main(%n: index)")


def _main(body: str, args: str = "") -> str:
    return f"""
  llvm.func @main({args}) {{
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
{body}
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }}
"""


def _contract(body: str, source: str = ONE_STREAM, args: str = "",
              runtime: str = "cuda") -> CheckResult:
    return check(source, _main(body, args), runtime=runtime)[CONTRACT]


CONST = ('    %k = llvm.mlir.constant({n} : i64) : i64 loc("op2")\n'
         '    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")\n')
EVENT = ('    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")\n'
         '    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")\n')
EVENT_DESTROY = '    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op2")\n'


def _call(callee: str, *args: str) -> str:
    types = ", ".join("!llvm.ptr" for _ in args)
    return f'    llvm.call @{callee}({", ".join(args)}) : ({types}) -> () loc("op2")\n'


@pytest.mark.parametrize(("n", "callee"), [
    (3, "mgpuStreamSynchronize"), (1, "mgpuEventSynchronize"), (7, "mgpuStreamDestroy"),
    (5, "mgpuEventDestroy")])
def test_an_integer_constant_as_a_handle_is_violated(n: int, callee: str) -> None:
    r = _contract(CONST.format(n=n) + _call(callee, "%p"))
    assert r.verdict == "violated", r
    assert f"the integer {n} as a pointer" in r.violations[0].detail


def test_an_integer_constant_as_the_stream_of_an_alloc_is_violated() -> None:
    body = CONST.format(n=9) + (
        '    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")\n'
        '    %f = llvm.mlir.constant(0 : i8) : i8 loc("op2")\n'
        '    %b = llvm.call @mgpuMemAlloc(%sz, %p, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr'
        ' loc("op2")\n')
    assert _contract(body).verdict == "violated"


@pytest.mark.parametrize(("body", "verdict"), [
    # The event as mgpuStreamWaitEvent's second operand and mgpuEventRecord's first.
    (EVENT + _call("mgpuStreamWaitEvent", "%s", "%e") + EVENT_DESTROY, "holds"),
    (EVENT + _call("mgpuEventSynchronize", "%e") + EVENT_DESTROY, "holds"),
    # Swapped: each operand judged by its role.
    (EVENT + _call("mgpuStreamWaitEvent", "%e", "%s") + EVENT_DESTROY, "violated"),
    (EVENT + _call("mgpuEventRecord", "%s", "%e") + EVENT_DESTROY, "violated"),
    (EVENT + _call("mgpuStreamSynchronize", "%e") + EVENT_DESTROY, "violated"),
    (EVENT + _call("mgpuEventSynchronize", "%s") + EVENT_DESTROY, "violated"),
], ids=["wait-ok", "event-sync-ok", "wait-swapped", "record-swapped", "event-as-stream",
        "stream-as-event"])
def test_operands_are_judged_by_role(body: str, verdict: str) -> None:
    assert _contract(body).verdict == verdict


ZERO = '    %z = llvm.mlir.zero : !llvm.ptr loc("op2")\n'


@pytest.mark.parametrize(("body", "runtime", "verdict"), [
    (ZERO + _call("mgpuStreamSynchronize", "%z"), "cuda", "holds"),
    (ZERO + _call("mgpuStreamSynchronize", "%z"), "sycl", "violated"),
    (ZERO + _call("mgpuStreamDestroy", "%z"), "cuda", "violated"),
    (ZERO + _call("mgpuEventSynchronize", "%z"), "cuda", "violated"),
], ids=["cuda-sync", "sycl-sync", "destroy", "event"])
def test_null_where_the_profile_takes_it_only(body: str, runtime: str, verdict: str) -> None:
    assert _contract(body, runtime=runtime).verdict == verdict


def test_a_constant_on_one_branch_names_the_branch() -> None:
    body = CONST.format(n=3) + (
        '    %q = llvm.select %c, %s, %p : i1, !llvm.ptr loc("op2")\n'
        + _call("mgpuStreamSynchronize", "%q"))
    r = _contract(body, BRANCH, "%c: i1")
    assert r.verdict == "violated", r
    assert r.violations[0].counterexample["path"] == {"main:%cond0": False}
    twin = _contract(ZERO + '    %q = llvm.select %c, %s, %z : i1, !llvm.ptr loc("op2")\n'
                     + _call("mgpuStreamSynchronize", "%q"), BRANCH, "%c: i1")
    assert twin.verdict == "holds", twin


@pytest.mark.parametrize("body", [
    # A stack slot's own address.
    ('    %one = llvm.mlir.constant(1 : i64) : i64 loc("op2")\n'
     '    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")\n'
     + _call("mgpuStreamSynchronize", "%slot")),
    # An integer argument turned into a pointer: the analysis does not know it.
    ('    %h = llvm.inttoptr %n : i64 to !llvm.ptr loc("op2")\n'
     + _call("mgpuStreamSynchronize", "%h")),
], ids=["slot-address", "int-argument"])
def test_a_pointer_not_made_here_is_unknown(body: str) -> None:
    args = "%n: i64" if "%n" in body else ""
    r = _contract(body, WITH_INT if args else ONE_STREAM, args)
    assert r.verdict == "unknown", r


def test_a_caller_pointer_given_as_a_stream_is_unknown() -> None:
    """A function no other calls is a root: its pointer argument is the
    caller's, which may be a stream made outside the module."""
    helper = """
  llvm.func @sync_given(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
"""
    r = check(ONE_STREAM, _main("") + helper)[CONTRACT]
    assert r.verdict == "unknown", r


def test_a_value_loaded_through_an_unknown_pointer_is_unknown() -> None:
    helper = """
  llvm.func @sync_loaded(%x: !llvm.ptr) {
    %v = llvm.load %x : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%v) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
"""
    r = check(ONE_STREAM, _main("") + helper)[CONTRACT]
    assert r.verdict == "unknown", r


LAUNCH_ON = ("    gpu.launch_func <%q : !llvm.ptr> @k::@fill blocks in (%c1, %c1, %c1) "
             "threads in (%c1, %c1, %c1) : i64 args(%b : !llvm.ptr) "
             'loc("src.mlir":8:11)\n')


@pytest.mark.parametrize(("make", "verdict"), [
    ("    %q = llvm.bitcast %s : !llvm.ptr to !llvm.ptr\n", "holds"),
    ('    %k = llvm.mlir.constant(3 : i64) : i64\n'
     '    %q = llvm.inttoptr %k : i64 to !llvm.ptr\n', "violated"),
    # CU_STREAM_LEGACY: a stream cuLaunchKernel takes.
    ('    %k = llvm.mlir.constant(1 : i64) : i64\n'
     '    %q = llvm.inttoptr %k : i64 to !llvm.ptr\n', "holds"),
], ids=["stream", "constant", "legacy-stream"])
def test_a_kernel_launch_is_given_a_stream(make: str, verdict: str) -> None:
    r = check_module(SOURCE, lowered(CREATE + make + LAUNCH_ON + SYNC + DESTROY))
    assert r[CONTRACT].verdict == verdict, r[CONTRACT]
