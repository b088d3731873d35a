"""Root causes an upstream maintainer accepts (issue 28): one defect per
upstream cause however it shows, the reduced program as its reproducer,
knock-ons decided by reduction and listed under their parent; tokens that
cross control flow run in the source semantics; the campaign options that
reach those programs.  Everything runs the real mlir-opt-19."""

from __future__ import annotations

from argparse import Namespace
from typing import Any

import pytest

from gpu_alloc_verify.oracles.runtime import Outcome
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import run_function
from gpu_alloc_verify.verify.cli import apply_config, build_parser
from gpu_alloc_verify.verify.cli.fuzz import new_options
from gpu_alloc_verify.verify.config import Config
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.model.program import For, Function, If, Program, Wait
from gpu_alloc_verify.verify.triage.buckets import triage_records
from gpu_alloc_verify.verify.triage.signature import signature_of
from gpu_alloc_verify.verify.triage.upstream import cause_id

needs_19 = pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
CF = "convert-scf-to-cf,gpu-to-llvm"

# A token yielded by scf.if, and one carried by scf.for, awaited by the host:
# both are streams that gpu-to-llvm synchronizes and destroys as events.
IF_TOKEN = """\
func.func @f0(%c: i1) {
  %t0 = gpu.wait async
  %t = scf.if %c -> !gpu.async.token {
    %t1 = gpu.wait async [%t0]
    scf.yield %t1 : !gpu.async.token
  } else {
    scf.yield %t0 : !gpu.async.token
  }
  gpu.wait [%t]
  return
}
"""
FOR_TOKEN = """\
func.func @f1() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t0 = gpu.wait async
  %t = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %t0) -> !gpu.async.token {
    %m, %t1 = gpu.alloc async [%a] () : memref<16xf32>
    %t2 = gpu.dealloc async [%t1] %m : memref<16xf32>
    scf.yield %t2 : !gpu.async.token
  }
  gpu.wait [%t]
  return
}
"""
# The same upstream cause from a sync host_shared and an async alloc: the
# descriptor of a memref in memory space 1 gets the !llvm.ptr of mgpuMemAlloc.
SPACE_SHARED = """\
func.func @f2() {
  %c0 = arith.constant 0 : index
  %m = gpu.alloc host_shared () : memref<4xf32, 1>
  %v = memref.load %m[%c0] : memref<4xf32, 1>
  return
}
"""
SPACE_ASYNC = """\
func.func @f3() {
  %t0 = gpu.wait async
  %m, %t1 = gpu.alloc async [%t0] () : memref<16xf32, 1>
  %t2 = gpu.dealloc async [%t1] %m : memref<16xf32, 1>
  gpu.wait [%t2]
  return
}
"""
# Two waits on an unconverted host_shared alloc's token destroy one handle
# twice: a consequence of the op left unconverted, not a bug of its own.
KNOCK_ON = """\
func.func @f4(%n: index) {
  %m2, %t3 = gpu.alloc async host_shared (%n) : memref<?xf64>
  %m4, %t5 = gpu.alloc async [%t3] (%n) : memref<?xf64>
  %t6 = gpu.wait async [%t3, %t5]
  return
}
"""


def _records(programs: list[tuple[str, list[str]]], pipeline: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"kind": "campaign-start", "campaign": "c1", "time": 1.0,
                                  "lowerings": ["mlir-opt-19"], "pipeline": pipeline}]
    for k, (text, bad) in enumerate(programs):
        out.append({"kind": "program", "campaign": "c1", "id": f"c1-p{k}", "program": text,
                    "results": {"mlir-opt-19": {"status": "ok", "verdicts": dict.fromkeys(
                        bad, "violated")}}})
    return out


@pytest.mark.slow
@needs_19
def test_defects_map_one_to_one_onto_upstream_causes() -> None:
    t = triage_records(_records([
        (IF_TOKEN, ["runtime-contract", "differential"]),
        (FOR_TOKEN, ["runtime-contract", "differential"]),
        (SPACE_SHARED, ["lowering-no-crash"]),
        (SPACE_ASYNC, ["lowering-no-crash"]),
    ], CF))
    defects = [b for b in t.buckets if b.kind == "defect"]
    causes = [cause_id(b.signature, b.kind, b.pass_name) for b in defects]
    assert sorted(c or "" for c in causes) == ["alloc-memory-space-invalid-ir",
                                               "token-crosses-control-flow"]
    by_cause = dict(zip(causes, defects, strict=True))
    space = by_cause["alloc-memory-space-invalid-ir"]
    assert space.signature.slug() == "invalid-ir-alloc-dealloc-memory-space"
    assert space.count == 2 and space.severity == 1  # both allocs, invalid IR
    assert [r["ref"] for r in space.upstream] == ["llvm/llvm-project#191661"]
    token = by_cause["token-crosses-control-flow"]
    assert token.count == 2 and not t.notes  # both programs, every verdict again
    assert "llvm/llvm-project#190717" in [r["ref"] for r in token.upstream]
    # Reduced reproducers: the load that does not matter is gone.
    assert space.reduced is not None and "memref.load" not in space.reduced
    assert "memory space" in space.signature.source


def test_one_signature_for_a_stream_given_to_any_event_call() -> None:
    recs = [{"invariant": "runtime-contract", "lowering": "mlir-opt-19", "program": IF_TOKEN,
             "detail": f"{call} (from {at}) is given a stream where an event is expected",
             "counterexample": {"path": {}, "source_op": at, "given": "stream",
                                "expected": "event"}}
            for call, at in (("mgpuEventSynchronize", "op3"), ("mgpuEventDestroy", "op7"))]
    a, b = (signature_of(r, CF) for r in recs)
    assert a == b and a.slug() == "stream-as-event"
    # Read from the roles the checker recorded, not from the detail's words.
    assert signature_of(dict(recs[0], detail="(reworded)"), CF) == a
    assert signature_of(dict(recs[0], counterexample={"path": {}, "source_op": "op3",
                                                      "given": "event",
                                                      "expected": "stream"}), CF) != a
    assert cause_id(a, "defect", "gpu-to-llvm") == "token-crosses-control-flow"
    # A knock-on is not mapped to the defect's upstream fix.
    assert cause_id(a, "knock-on", "gpu-to-llvm") is None


@needs_19
def test_a_knock_on_sits_under_its_parent_after_reduction() -> None:
    t = triage_records(_records([(KNOCK_ON, ["stream-no-use-after-destroy",
                                             "lowering-complete"])], "gpu-to-llvm"))
    assert [b.kind for b in t.buckets] == ["limitation"]
    [parent] = t.buckets
    assert parent.signature.focus == "alloc-async-host-shared"
    [knock] = parent.knock_ons
    assert knock.kind == "knock-on" and knock.parent == parent.key
    assert knock.upstream == []
    assert t.kind_counts() == {"defect": 0, "limitation": 1, "knock-on": 1}
    # Without reduction the same candidate stays a knock-on (it never stands alone).
    again = triage_records(_records([(KNOCK_ON, ["stream-no-use-after-destroy",
                                                 "lowering-complete"])], "gpu-to-llvm"),
                           reduce=False)
    assert again.kind_counts() == t.kind_counts()
    assert t.to_json()["buckets"][0]["knock_ons"][0]["parent"] == parent.key


def _wait(op_id: str, token: str | None, deps: tuple[str, ...] = ()) -> Wait:
    return Wait(op_id, token, deps)


def test_tokens_flow_through_scf_yield_and_iter_args() -> None:
    """The source semantics carries a yielded token: awaiting the result
    awaits what the branch or the last iteration yielded."""
    branch = If("op2", "%c", (_wait("op3", "%t1", ("%t0",)),), (),
                ("%t",), ("%t1",), ("%t0",))
    loop = For("op5", "%i", 2, (_wait("op6", "%t3", ("%a",)),), (("%a", "%t"),),
               ("%t3",), ("%t4",))
    fn = Function("f", (), (_wait("op1", "%t0"), branch, loop, _wait("op7", None, ("%t4",))))
    for cond in (True, False):
        run = run_function(fn, {"%c": cond}, SimulatedRuntime())
        assert run.status == "ok", run.reason
        assert isinstance(run.outcome, Outcome)
        assert run.unawaited == []  # every token is covered by the host wait
    # Unawaited: the loop's result is never waited on.
    fn = Function("f", (), (_wait("op1", "%t"), loop))
    run = run_function(fn, {}, SimulatedRuntime())
    assert run.status == "ok" and set(run.unawaited) == {"%t", "%t3"}
    assert Program((fn,)).op_count() == 3


def _parsed(*argv: str) -> Namespace:
    """The command line as `main` has it (the runtime filled in from the pipeline)."""
    args = build_parser().parse_args(argv)
    apply_config(args, Config())
    return args


def test_fuzz_options_reach_control_flow_tokens_and_memory_spaces() -> None:
    args = _parsed("fuzz", "--cf-tokens", "--alloc-spaces")
    gen = new_options(args, None).gen
    assert gen.cf_tokens and gen.alloc_spaces
    # Without swarm testing (fuzz's default since issue 40 draws them in the
    # programs whose swarm subset has them) they are opt-in.
    plain = new_options(_parsed("fuzz", "--no-swarm"), None).gen
    assert not plain.cf_tokens and not plain.alloc_spaces


# The event of `gpu.wait async [%t0]` is made after %t0's definition, outside
# the loop, and destroyed in it: zero trips leak it, two destroy it twice.
LOOP_WAIT = """\
func.func @f5(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = gpu.wait async
  scf.for %i = %c0 to %n step %c1 {
    %t1 = gpu.wait async [%t0]
    gpu.wait [%t1]
  }
  gpu.wait [%t0]
  return
}
"""


@needs_19
def test_an_event_made_outside_the_loop_it_is_destroyed_in_is_its_own_cause() -> None:
    t = triage_records(_records([(LOOP_WAIT, ["event-no-leak", "stream-no-use-after-destroy"]),
                                 (IF_TOKEN, ["runtime-contract"])], CF))
    causes = {cause_id(b.signature, b.kind, b.pass_name) for b in t.buckets
              if b.kind == "defect"}
    # Each defect is a known cause, these two among them (the program also
    # destroys an aliased stream twice: a third cause, its own bucket).
    assert None not in causes
    assert {"wait-async-event-outside-region", "token-crosses-control-flow"} <= causes


def test_the_reducer_drops_one_dependency_at_a_time() -> None:
    from gpu_alloc_verify.verify.triage.reduce import candidates

    lines = ["%t6 = gpu.wait async [%t1, %t2]"]
    texts = {e.apply(lines)[0] for e in candidates(lines) if e.replace}
    assert texts == {"%t6 = gpu.wait async [%t1]", "%t6 = gpu.wait async [%t2]"}
