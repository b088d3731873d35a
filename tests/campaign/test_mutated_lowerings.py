"""Fuzzing real mlir-opt-19 and buggy wrappers around it (issue 2)."""

from __future__ import annotations

import pytest
import z3

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions, run_fuzz
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import check_batch
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering, resolve_mlir_opt
from gpu_alloc_verify.verify.model.program import Program, Wait
from tests.conftest import collect_programs, need_mlir_opt


def fuzz(path: str, **kw) -> dict:
    lowering = MlirOptLowering(f"mlir-opt:{path}", path)
    report = run_fuzz(FuzzOptions([lowering], seed=0, **kw))  # every invariant, as campaigns
    return {inv: f for (_, inv), f in report.found.items()}


@pytest.mark.nightly  # a 40 s campaign: nightly (`pytest -m nightly`), not CI
def test_dropped_stream_destroy_is_found_and_shrunk(mutant) -> None:
    found = fuzz(mutant("drop-stream-destroy"), max_examples=200)
    assert "stream-no-leak" in found
    f = found["stream-no-leak"]
    assert f.program.op_count() <= 4, f.program.to_mlir()
    assert "mgpuStreamCreate" in f.judgement.lowered


@pytest.mark.nightly  # a 25 s campaign: nightly (`pytest -m nightly`), not CI
def test_stream_created_for_sync_alloc_is_found(mutant) -> None:
    found = fuzz(mutant("sync-alloc-stream"), max_examples=200)
    assert "sync-alloc-no-stream" in found
    f = found["sync-alloc-no-stream"]
    assert f.program.op_count() <= 4, f.program.to_mlir()


def _has_async_wait_with_deps(p: Program) -> bool:
    return any(isinstance(op, Wait) and op.token and op.deps for op in p.walk())


@pytest.mark.slow
def test_no_false_alarm_on_real_mlir_opt_19() -> None:
    """On programs mlir-opt-19 fully lowers, every alarm is real.

    mlir-opt-19 really leaks the dependency streams of `gpu.wait async [%t]`
    (it records an event on them and never destroys them), and destroys a
    shared stream twice when a token fans out; so alarms there are expected.
    Everywhere else, no alarm; and each alarm is re-checked concretely: the
    counterexample's branch values are plugged into the call list and the
    creates and destroys counted without the solver.
    """
    need_mlir_opt(19)
    # Kernels need their gpu.module converted first.
    lowering = resolve_mlir_opt("mlir-opt-19", "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm")
    progs = (collect_programs(300, GenConfig(max_ops=10))
             + collect_programs(200, GenConfig(max_ops=10).supported_by(19)))
    rows = check_batch(progs, [lowering], CheckOptions())
    fully = 0
    from gpu_alloc_verify.verify.extract.calls import extract
    from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered
    from gpu_alloc_verify.verify.source.of_program import source_facts

    for p, row in zip(progs, rows, strict=False):
        j = row["mlir-opt-19"]
        if j.status != "ok" or j.results["lowering-complete"].verdict != "holds":
            continue
        fully += 1
        assert j.results["sync-alloc-no-stream"].verdict in ("holds", "not-applicable")
        leak = j.results["stream-no-leak"]
        if leak.verdict == "holds":
            continue
        assert _has_async_wait_with_deps(p) or "token.fan-out" in __import__(
            "gpu_alloc_verify.generators.features", fromlist=["features"]).features(p), p.to_mlir()
        facts = extract(parse_lowered(j.lowered), source_facts(p).arg_names)
        for v in leak.violations:
            path = {z3.Bool(k): z3.BoolVal(val) for k, val in v.counterexample["path"].items()}
            subst = list(path.items())

            def concrete(e: z3.ExprRef, subst=subst) -> z3.ExprRef:
                return z3.simplify(z3.substitute(e, *subst)) if subst else z3.simplify(e)

            live = {}
            for c in facts.calls:
                if not z3.is_true(concrete(c.guard)):
                    continue
                if c.callee == "mgpuStreamCreate":
                    live[c.handle] = 0
                elif c.callee == "mgpuStreamDestroy":
                    h = concrete(c.args[0])
                    if z3.is_int_value(h):
                        live[h.as_long()] = live.get(h.as_long(), 0) + 1
            assert any(n != 1 for n in live.values()), (p.to_mlir(), v.detail)
    assert fully >= 200
