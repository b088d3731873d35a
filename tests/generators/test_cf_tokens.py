"""Tokens that cross control flow (issue 28): the generator emits `scf.if`
yielding tokens, `scf.for` carrying them in `iter_args`, loop bodies using
outer tokens; mlir-opt parses every such program; and the tool reports
upstream's defect on them: after `convert-scf-to-cf` the token is a block
argument holding a stream, which gpu-to-llvm synchronizes and destroys as an
event, so the host does not wait."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gpu_alloc_verify.generators.features import CF_TOKEN_FEATURES, features
from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.program import For, If, crosses_control_flow
from tests.conftest import collect_programs, need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]
CF = GenConfig(max_ops=10, cf_tokens=True)

# A branch yields its token; the host then waits on the yielded token.
BRANCH_TOKEN = """\
func.func @f(%c: i1) -> memref<16xf32> {
  %t0 = gpu.wait async
  %t = scf.if %c -> !gpu.async.token {
    %m, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %t2 = gpu.dealloc async [%t1] %m : memref<16xf32>
    scf.yield %t2 : !gpu.async.token
  } else {
    scf.yield %t0 : !gpu.async.token
  }
  %m2, %t3 = gpu.alloc async [%t] () : memref<16xf32>
  gpu.wait [%t3]
  return %m2 : memref<16xf32>
}
"""


@pytest.mark.slow
def test_the_generator_reaches_every_control_flow_token_shape() -> None:
    progs = collect_programs(300, CF)
    counts = Counter(f for p in progs for f in features(p))
    assert all(counts[f] for f in CF_TOKEN_FEATURES), counts
    # A yielded token is awaited by the host, or used by an op, after its region.
    used_after = set()
    for p in progs:
        for op in p.walk():
            used_after |= set(getattr(op, "deps", ()))
    results = {r for p in progs for op in p.walk() if isinstance(op, (If, For))
               for r in op.results}
    assert results & used_after


def test_generated_control_flow_tokens_are_valid_mlir() -> None:
    tool = need_mlir_opt(19)
    progs = [p for p in collect_programs(200, CF) if crosses_control_flow(p)]
    assert len(progs) > 20
    text = "\n// -----\n".join(p.to_mlir() for p in progs)
    out = subprocess.run([tool, "--split-input-file", "-"], input=text, capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0, out.stderr[:2000]


def test_the_default_generator_draws_no_control_flow_token() -> None:
    # Off by default (`fuzz --cf-tokens`): default campaigns and their seeds
    # draw what they drew.
    assert not any(crosses_control_flow(p) for p in collect_programs(200))


@pytest.mark.slow
def test_generated_programs_with_such_tokens_run_in_the_source_semantics() -> None:
    # The source runner carries tokens through scf.yield and iter_args: the
    # differential verdict is decided, and it finds the defect on some.
    need_mlir_opt(19)
    progs = [p for p in collect_programs(200, CF) if crosses_control_flow(p)][:30]
    lowering = resolve("mlir-opt-19", "convert-scf-to-cf,gpu-to-llvm")
    seen = Counter()
    for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
        verdicts = judge(program, outcome, "mlir-opt-19", CheckOptions()).verdicts()
        assert verdicts["lowering-no-crash"] == "holds"
        seen[verdicts["differential"]] += 1
    assert seen["holds"] and seen["violated"] and not seen["not-applicable"], seen


def test_the_tool_reports_a_yielded_stream_destroyed_as_an_event(tmp_path: Path) -> None:
    need_mlir_opt(19)
    src = tmp_path / "branch_token.mlir"
    src.write_text(BRANCH_TOKEN)
    out = subprocess.run(
        [sys.executable, "-m", "gpu_alloc_verify", "check", str(src), "--lowering", "mlir-opt-19",
         "--pipeline", "convert-scf-to-cf,gpu-to-llvm", "--invariant", "runtime-contract"],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "mgpuEventSynchronize" in out.stdout
    assert "a stream where an event is expected" in out.stdout
    assert "confirmed by execution" in out.stdout
