"""Every verdict checked against execution (`verify.invariants.witness`).

The analysis's answers are replaced by wrong ones on purpose (a `violated`
on a correct lowering, a `holds` on a buggy one): execution must overrule
them and record the disagreement.  Real answers on real output are
confirmed.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.invariants.witness import (
    CONFIRMED,
    FOUND,
    NOT_CONFIRMED,
    TruthPolicy,
    reconcile,
)
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model.verdicts import CheckResult, Violation
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.builders import DECLS, generic

SOURCE = """
func.func @main(%c: i1) {
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] () : memref<4xi32> loc("op2")
  gpu.wait [%t1] loc("op3")
  return
}
"""

# What 19 emits, in short: one stream, synchronized and destroyed once.
CORRECT = """
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %n = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %f = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%n, %s, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
"""

# The destroy only when %c: a leak when %c is false.
LEAKY = CORRECT.replace(
    '    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")\n    llvm.return\n',
    '    llvm.cond_br %c, ^d, ^x\n  ^d:\n'
    '    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")\n    llvm.br ^x\n'
    '  ^x:\n    llvm.return\n')


def _judge(lowered_funcs: str, truth: TruthPolicy | None = None):
    program = program_from_text(SOURCE)
    lowered = generic("module {\n" + lowered_funcs + DECLS + "}\n")
    return judge(program, LoweringOutcome("ok", lowered=lowered), "hand-written",
                 CheckOptions(truth=truth or TruthPolicy()))


def _check_19(text: str, invariants: list[str], name: str = "src.mlir"):
    """`check`'s judgement of `text` (written to a file) on mlir-opt-19."""
    import tempfile
    from pathlib import Path

    from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_text(text)
        return check_file(str(path), [resolve("mlir-opt-19")],
                          CHECK_OPTIONS.replace(invariants=tuple(invariants)))[1]["mlir-opt-19"]


def _context(lowered_funcs: str):
    """The checker context `judge` builds, for feeding `reconcile` made-up verdicts."""
    from gpu_alloc_verify.verify.extract.calls import extract
    from gpu_alloc_verify.verify.invariants.context import CheckContext
    from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered
    from gpu_alloc_verify.verify.source.of_program import source_facts

    program = program_from_text(SOURCE)
    text = generic("module {\n" + lowered_funcs + DECLS + "}\n")
    module = parse_lowered(text)
    src = source_facts(program)
    return CheckContext(program, src, extract(module, src.lowered_arg_names), module, text)


def test_a_real_leak_is_confirmed_with_its_inputs():
    j = _judge(LEAKY)
    r = j.results["stream-no-leak"]
    assert r.verdict == "violated"
    assert r.violations[0].confirmation.startswith(CONFIRMED)
    assert "@main(%cond0=false)" in r.violations[0].confirmation
    assert not j.disagreements


def test_a_correct_lowering_holds_and_is_cross_checked():
    j = _judge(CORRECT, TruthPolicy(crosscheck=True))
    r = j.results["stream-no-leak"]
    assert r.verdict == "holds" and "cross-checked by execution on 2 input(s)" in r.coverage
    assert not j.disagreements


def test_a_violation_execution_contradicts_is_not_reported():
    """A made-up leak on the correct lowering: its witness runs clean."""
    ctx = _context(CORRECT)
    results = {"stream-no-leak": CheckResult("stream-no-leak", "violated", [Violation(
        "stream-no-leak", "made-up leak", {"path": {"main:%cond0": False}})])}
    found = reconcile(ctx, results, TruthPolicy())
    r = results["stream-no-leak"]
    assert r.verdict == "unknown" and not r.violations
    assert "analysis defect" in r.reason and "@main(%cond0=false)" in r.reason
    assert [(d.kind, d.analysis) for d in found] == [("imprecise", "violated")]


def test_a_holds_execution_contradicts_becomes_violated():
    """A made-up holds on the leaky lowering: the cross-check finds the leak."""
    ctx = _context(LEAKY)
    results = {"stream-no-leak": CheckResult("stream-no-leak", "holds")}
    found = reconcile(ctx, results, TruthPolicy(crosscheck=True))
    r = results["stream-no-leak"]
    assert r.verdict == "violated"
    assert r.violations[0].confirmation.startswith(FOUND)
    assert r.violations[0].counterexample["inputs"] == {"main:%cond0": False}
    assert [(d.kind, d.analysis) for d in found] == [("unsound", "holds")]


def test_without_the_cross_check_a_holds_is_left_alone():
    ctx = _context(LEAKY)
    results = {"stream-no-leak": CheckResult("stream-no-leak", "holds")}
    assert reconcile(ctx, results, TruthPolicy()) == []
    assert results["stream-no-leak"].verdict == "holds"


def test_a_violation_that_cannot_run_says_not_confirmed():
    """An external call the interpreter does not model ends the run: the
    violation stays, marked not confirmed, with the reason."""
    opaque = LEAKY.replace("    llvm.call @mgpuStreamSynchronize",
                           "    llvm.call @opaque_host_work() : () -> () loc(\"op3\")\n"
                           "    llvm.call @mgpuStreamSynchronize") + \
        "  llvm.func @opaque_host_work()\n"
    ctx = _context(opaque)
    results = {"stream-no-leak": CheckResult("stream-no-leak", "violated", [Violation(
        "stream-no-leak", "a leak", {"path": {"main:%cond0": False}})])}
    assert reconcile(ctx, results, TruthPolicy()) == []
    v = results["stream-no-leak"].violations[0]
    assert v.confirmation.startswith(NOT_CONFIRMED) and "opaque_host_work" in v.confirmation


def test_memref_arguments_do_not_shift_branch_names():
    """The calling convention: a memref is 5 lowered arguments, so the i1
    after it is lowered %arg5, the same variable as the source's %c."""
    text = """func.func @main(%out: memref<16xi32>, %c: i1) {
  %t0 = gpu.wait async
  %m, %t1 = gpu.alloc async [%t0] () : memref<16xi32>
  %t2 = gpu.memcpy async [%t1] %out, %m : memref<16xi32>, memref<16xi32>
  scf.if %c {
    gpu.wait [%t2]
  }
  return
}
"""
    j = _check_19(text, ["stream-no-leak", "event-no-leak"], "copy_if.mlir")
    # Un-awaited when %c is false (the source's own leak, exempt), awaited when true.
    assert j.results["stream-no-leak"].verdict == "holds", j.results["stream-no-leak"]
    assert not j.disagreements


def test_check_confirms_a_real_double_destroy_by_a_native_run():
    """mlir-opt-19's fan-out double destroy: the witness JIT-run on the C
    shim, its calls replayed on the checking runtime."""
    import pytest

    from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
    from gpu_alloc_verify.verify.invariants.native_truth import _native_runner
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    if isinstance(_native_runner(), str):
        pytest.skip(_native_runner())
    _, row = check_file("tests/corpus/fanout_double_destroy.mlir", [resolve("mlir-opt-19")],
                        CHECK_OPTIONS.replace(invariants=("stream-no-leak",
                                                          "stream-no-use-after-destroy")))
    for inv in ("stream-no-leak", "stream-no-use-after-destroy"):
        v = row["mlir-opt-19"].results[inv].violations[0]
        assert v.confirmation.startswith(f"{CONFIRMED} (native run): @replicate()"), v


def test_ops_sharing_a_location_are_told_apart():
    """Two allocs written with one location: before tagging, the non-shared
    one's call was compared with the host_shared one's flag (a false
    violation, which execution keyed the same way 'confirmed')."""
    text = """func.func @main() {
  %a = gpu.alloc host_shared () : memref<4xi32> loc("k.mlir":3:5)
  %t0 = gpu.wait async loc("k.mlir":4:5)
  %b, %t1 = gpu.alloc async [%t0] () : memref<4xi32> loc("k.mlir":3:5)
  gpu.wait [%t1] loc("k.mlir":9:1)
  return
}
"""
    j = _check_19(text, ["host-shared-flag", "sync-alloc-no-stream"], "shared.mlir")
    assert j.verdicts() == {"host-shared-flag": "holds", "sync-alloc-no-stream": "holds"}
    assert not j.disagreements


def test_a_source_outside_the_model_is_run_from_its_labels():
    """A file with a token passed between functions is outside the Program
    model: its lowered functions still run, their arguments made from the
    calling-convention labels, and 19's stream destroyed as an event is
    confirmed (the stream leaks; the event calls get a stream)."""
    from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    _, row = check_file("tests/corpus/token_across_functions.mlir", [resolve("mlir-opt-19")],
                        CHECK_OPTIONS.replace(invariants=("stream-no-leak", "runtime-contract")))
    j = row["mlir-opt-19"]
    leak = j.results["stream-no-leak"].violations[0].confirmation
    assert leak.startswith(f"{CONFIRMED} (lowered-IR interpreter): @begin_upload()"), leak
    assert "not run natively: the source is outside the executable model" in leak
    contract = j.results["runtime-contract"].violations[0].confirmation
    assert contract.startswith(CONFIRMED) and "invalid-handle" in contract, contract
