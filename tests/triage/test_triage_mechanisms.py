"""One root cause per mechanism (issue 42): every symptom a handle mechanism
shows, under whichever rule saw it, gets one signature and one slug, and no
two mechanisms share one; invalid IR a non-GPU conversion gives alone is that
conversion's.  Each program is lowered and judged by the real mlir-opt-19."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.triage.attribution import attribute
from gpu_alloc_verify.verify.triage.rejudge import Settings, rejudge
from gpu_alloc_verify.verify.triage.signature import Signature, signature_of

needs_19 = pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
HANDLE_RULES = ["stream-no-use-after-destroy", "stream-no-leak", "event-no-leak"]

# The memset's token is %t1's stream: the two waits destroy it twice.
ALIAS_WAITED_TWICE = """\
func.func @alias_waited_twice(%buf: memref<16xf32>, %v: f32) {
  %t1 = gpu.wait async
  %t2 = gpu.memset async [%t1] %buf, %v : memref<16xf32>, f32
  gpu.wait [%t2]
  gpu.wait [%t1]
  return
}
"""
# The first wait destroys the stream the second memset then runs on.
ALIAS_USED_AFTER_WAIT = """\
func.func @alias_used_after_wait(%buf: memref<16xf32>, %v: f32) {
  %t1 = gpu.wait async
  %t2 = gpu.memset async [%t1] %buf, %v : memref<16xf32>, f32
  gpu.wait [%t2]
  %t3 = gpu.memset async [%t1] %buf, %v : memref<16xf32>, f32
  gpu.wait [%t3]
  return
}
"""
# %t0's event is made before the loop and destroyed in it: zero trips leak
# it, two destroy it twice.
EVENT_IN_LOOP = """\
func.func @event_in_loop(%n: index) {
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
# The same event made before a branch and destroyed in one arm only.
EVENT_IN_BRANCH = """\
func.func @event_in_branch(%c: i1) {
  %t0 = gpu.wait async
  scf.if %c {
    %t1 = gpu.wait async [%t0]
    gpu.wait [%t1]
  }
  gpu.wait [%t0]
  return
}
"""


def _signatures(text: str) -> list[tuple[str, Signature]]:
    """(rule, signature) of every handle violation mlir-opt-19's lowering shows."""
    found = rejudge([text], ["p"], Settings("mlir-opt-19", "gpu-to-llvm"), [HANDLE_RULES])[0]
    assert found is not None
    return [(v["invariant"], signature_of(v, "gpu-to-llvm")) for v in found]


@needs_19
def test_each_mechanism_is_one_slug_whatever_rule_sees_it() -> None:
    alias = _signatures(ALIAS_WAITED_TWICE) + _signatures(ALIAS_USED_AFTER_WAIT)
    event = _signatures(EVENT_IN_LOOP) + _signatures(EVENT_IN_BRANCH)
    # Each symptom pair is there (use after destroy and a leak rule's double
    # destroy; use after destroy and the event leak)...
    assert {"stream-no-use-after-destroy", "stream-no-leak"} <= {r for r, _ in alias}
    assert {"stream-no-use-after-destroy", "event-no-leak"} <= {r for r, _ in event}
    # ...and each mechanism is one signature, the two different.
    alias_stream = {s for r, s in alias if s.focus.startswith("stream destroyed")}
    assert {s.slug() for s in alias_stream} == {"stream-destroyed-while-aliased"}
    assert len({s.key for s in alias_stream}) == 1
    assert [r for r, s in alias if s in alias_stream].count("stream-no-use-after-destroy") >= 2
    event_sigs = {s for r, s in event if s.focus.startswith("event made")}
    assert {r for r, s in event if s in event_sigs} >= {"stream-no-use-after-destroy",
                                                       "event-no-leak"}
    assert {s.slug() for s in event_sigs} == {"event-destroyed-at-each-wait"}
    assert len({s.key for s in event_sigs}) == 1
    assert not alias_stream & event_sigs


SPACE1_DEALLOC = """\
func.func @dealloc_in_space_1() {
  %m = memref.alloc() : memref<4xf32, 1>
  memref.dealloc %m : memref<4xf32, 1>
  return
}
"""


@needs_19
def test_memref_dealloc_in_space_1_is_memref_to_llvms_by_experiment() -> None:
    found = rejudge([SPACE1_DEALLOC], ["p"], Settings("mlir-opt-19", "gpu-to-llvm"),
                    [["lowering-no-crash"]])[0]
    assert found
    sig = signature_of(found[0], "gpu-to-llvm")
    assert sig.slug() == "invalid-ir-memref-dealloc-memory-space"
    a = attribute(SPACE1_DEALLOC, sig, "gpu-to-llvm", "mlir-opt-19", ["mlir-opt-19"])
    assert a.reproduces_on() == ["mlir-opt-19"]
    assert a.first_pass == "gpu-to-llvm"
    # No GPU pass needed: finalize-memref-to-llvm alone gives the same complaint.
    assert a.component == "finalize-memref-to-llvm"


def _campaign(programs: list[tuple[str, list[str]]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [{"kind": "campaign-start", "campaign": "c1", "time": 1.0,
                                     "lowerings": ["mlir-opt-19"], "pipeline": "gpu-to-llvm"}]
    for k, (text, bad) in enumerate(programs):
        out.append({"kind": "program", "campaign": "c1", "id": f"c1-p{k}", "program": text,
                    "results": {"mlir-opt-19": {"status": "ok", "verdicts": dict.fromkeys(
                        bad, "violated")}}})
    return out


@needs_19
def test_the_catalogue_has_one_entry_per_cause_for_every_symptom_pair() -> None:
    from gpu_alloc_verify.reports.findings import findings_of
    from gpu_alloc_verify.verify.triage.buckets import triage_records

    uad, leak, event_leak = HANDLE_RULES
    triage = triage_records(_campaign([
        (ALIAS_WAITED_TWICE, [uad, leak]), (ALIAS_USED_AFTER_WAIT, [uad]),
        (EVENT_IN_LOOP, [uad, event_leak]), (EVENT_IN_BRANCH, [event_leak])]), reduce=False)
    found = findings_of(triage)
    slugs = [f.lead.signature.slug() for f in found]
    # No cause under two slugs, no two entries with one cause.
    assert len(slugs) == len(set(slugs)), slugs
    assert slugs.count("stream-destroyed-while-aliased") == 1
    assert slugs.count("event-destroyed-at-each-wait") == 1
    assert not {"stream-use-after-destroy", "stream-double-destroy", "event-use-after-destroy",
                "event-double-destroy", "event-leak-wait-async-dep"} & set(slugs)
    alias = next(f for f in found if f.lead.signature.slug() == "stream-destroyed-while-aliased")
    assert alias.count == 2  # both programs, whichever rule saw each


# The alias double destroy on a buffer of an async host_shared alloc, which
# gpu-to-llvm declines: the smallest example, and it needs the leftover.
ALIAS_ON_LEFTOVER = """\
func.func @alias_on_leftover(%v: f32) {
  %t1 = gpu.wait async
  %m, %ta = gpu.alloc async [%t1] host_shared () : memref<16xf32>
  %t2 = gpu.memset async [%t1] %m, %v : memref<16xf32>, f32
  gpu.wait [%t2]
  gpu.wait [%t1]
  return
}
"""
# The same alias beside such a leftover it does not need.
ALIAS_BESIDE_LEFTOVER = """\
func.func @alias_beside_leftover(%buf: memref<16xf32>, %v: f32) {
  %t1 = gpu.wait async
  %m, %ta = gpu.alloc async [%t1] host_shared () : memref<4xf32>
  %t2 = gpu.memset async [%t1] %buf, %v : memref<16xf32>, f32
  gpu.wait [%t2]
  gpu.wait [%t1]
  return
}
"""


@pytest.mark.slow
@needs_19
def test_an_unrelated_leftover_is_reduced_away_before_the_knock_on_verdict() -> None:
    from gpu_alloc_verify.verify.triage.buckets import triage_records

    uad = HANDLE_RULES[0]
    # Every program showing it leaves an op unconverted, and the smallest
    # cannot lose it; reduced until none is left, the next one stands alone.
    triage = triage_records(_campaign([(ALIAS_ON_LEFTOVER, [uad, "lowering-complete"]),
                                       (ALIAS_BESIDE_LEFTOVER, [uad, "lowering-complete"])]))
    alias = [b for b in triage.all_buckets()
             if b.signature.slug() == "stream-destroyed-while-aliased"]
    assert len(alias) == 1
    # A defect of its own, its reproducer without the leftover it never needed.
    assert alias[0].kind == "defect" and alias[0].parent is None
    assert alias[0].reduced is not None and "host_shared" not in alias[0].reduced


# gpu-async-region makes the trailing `gpu.wait async` wait on the memset it
# made async: gpu-to-llvm records an event on that stream and drops it.
REGION_MADE_WAIT = """\
func.func @region_made_wait() {
  %cst = arith.constant 0.0 : f32
  %m, %t0 = gpu.alloc async () : memref<4xf32>
  gpu.wait [%t0]
  gpu.memset %m, %cst : memref<4xf32>, f32
  %t1 = gpu.wait async
  return
}
"""
PLAIN_WAIT = """\
func.func @plain_wait() {
  %t1 = gpu.wait async
  %t2 = gpu.wait async [%t1]
  gpu.wait [%t2]
  return
}
"""


@needs_19
def test_a_stream_dropped_after_its_event_is_one_leak_whoever_made_the_wait() -> None:
    region = "func.func(gpu-async-region),gpu-to-llvm"
    found = rejudge([REGION_MADE_WAIT], ["p"], Settings("mlir-opt-19", region),
                    [["stream-no-leak"]])[0]
    plain = _signatures(PLAIN_WAIT)
    assert found and plain
    slugs = {signature_of(v, region).slug() for v in found}
    assert slugs == {s.slug() for _, s in plain} == {"stream-leak-wait-async-dep"}
