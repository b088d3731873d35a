"""Root-cause kinds (defect, limitation, knock-on), their order, knock-on
nesting, merging of duplicate programs and of structural and differential
views, the pass at fault and the upstream status; and `triage --json` on a
real campaign."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.ir.ir_lines import parse_source
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.triage.buckets import Bucket, _Builder, _Campaign
from gpu_alloc_verify.verify.triage.causes import organize
from gpu_alloc_verify.verify.triage.kinds import (
    ASYNC_SHARED,
    MEMSET64,
    NOT_ONE_DEP,
    REGION_SHARED,
    SYNC,
    precondition,
)
from gpu_alloc_verify.verify.triage.signature import STREAM_ALIAS, Signature, mechanism
from gpu_alloc_verify.verify.triage.upstream import upstream_of

FAM = "mlir-opt (gpu-to-llvm)"
LEAK = Signature("stream-no-leak", "gpu.wait async [%t]",
                 "mgpuStreamCreate -> mgpuEventRecord; never destroyed", FAM,
                 "gpu.wait async [%t]")
DOUBLE = mechanism(STREAM_ALIAS, FAM)
RACE = Signature("async-order", "gpu.memcpy -> host read", "mgpuMemcpy", FAM, "host read")
DIFF = Signature("differential", "?", "lowered outcome differs in errors", FAM, "? errors")
SYNC_OP = Signature("lowering-complete", "sync op", "left unconverted", FAM, SYNC)
NOT_ONE = Signature("lowering-complete", "not one dep", "left unconverted", FAM, NOT_ONE_DEP)
REGION = Signature("lowering-complete", "region", "left unconverted",
                   "mlir-opt (func.func(gpu-async-region),gpu-to-llvm)", REGION_SHARED)


def _program(n: int) -> str:
    return f"module {{\n  func.func @f{n}() {{\n    return\n  }}\n}}\n"


def _build(occurrences: list[tuple[Signature, str, list[Signature]]]) -> list[Bucket]:
    """Buckets from (signature, program text, unconverted ops on that program)."""
    builder = _Builder(["c1"])
    camp = _Campaign("c1")
    for k, (sig, text, unconverted) in enumerate(occurrences):
        rec: dict[str, Any] = {"invariant": sig.invariant, "lowering": "mlir-opt-19",
                               "program": text}
        builder.add(sig, camp, rec, None, f"p{k}", unconverted=unconverted)
    return sorted(builder.buckets.values(), key=lambda b: (-b.count, b.key))


def test_kinds_order_and_knock_on_nesting() -> None:
    top = organize(_build([
        (SYNC_OP, _program(1), [SYNC_OP]), (SYNC_OP, _program(2), [SYNC_OP]),
        (SYNC_OP, _program(3), [SYNC_OP]),
        (NOT_ONE, _program(4), [NOT_ONE]),
        (LEAK, _program(5), []), (LEAK, _program(6), []),
        (DOUBLE, _program(7), []),
        (RACE, _program(8), []),
        # Every program showing the differential also leaves a sync op: a knock-on.
        (DIFF, _program(3), [SYNC_OP]), (DIFF, _program(9), [SYNC_OP, NOT_ONE]),
        (DIFF, _program(10), [SYNC_OP]),
    ]))
    assert [(b.kind, b.signature) for b in top] == [
        ("defect", DOUBLE), ("defect", RACE), ("defect", LEAK),  # memory, wrong, leak
        ("limitation", SYNC_OP), ("limitation", NOT_ONE)]
    assert [b.severity for b in top[:3]] == [0, 2, 3]
    sync = top[3]
    [knock] = sync.knock_ons
    assert (knock.kind, knock.signature, knock.parent) == ("knock-on", DIFF, sync.key)
    assert all(b.pass_name == "gpu-to-llvm" for b in top)


def test_a_cause_seen_once_without_an_unconverted_op_is_a_defect() -> None:
    top = organize(_build([(SYNC_OP, _program(1), [SYNC_OP]),
                           (LEAK, _program(2), [SYNC_OP]), (LEAK, _program(3), [])]))
    assert [b.kind for b in top] == ["defect", "limitation"]
    assert top[1].knock_ons == []
    # The reproducer is the program that shows the leak alone.
    assert top[0].example is not None and top[0].example["program"] == _program(3)


def test_same_minimal_program_is_one_bucket() -> None:
    same = _program(1).replace("return", 'return loc("op9")')
    top = organize(_build([(LEAK, _program(1), []), (LEAK, _program(2), []),
                           (RACE, same, [])]))
    [lead] = top
    assert lead.signature == RACE  # wrong results rank before a leak
    assert [m.signature for m in lead.merged] == [LEAK]
    assert lead.to_json()["merged"][0]["invariant"] == "stream-no-leak"


def test_async_region_host_shared_is_a_defect_of_that_pass() -> None:
    [b] = organize(_build([(REGION, _program(1), [REGION])]))
    assert (b.kind, b.pass_name, b.severity) == ("defect", "gpu-async-region", 3)
    assert [r["ref"] for r in b.upstream] == ["llvm/llvm-project#90876"]
    assert b.upstream[0]["url"] == "https://github.com/llvm/llvm-project/pull/90876"


def test_preconditions_not_op_shapes() -> None:
    src = parse_source("""\
func.func @f(%c: i1) {
  %a = gpu.alloc () : memref<4xf32> loc("op1")
  %b, %t = gpu.alloc async [%x, %y] () : memref<4xf32> loc("op2")
  %s, %u = gpu.alloc async [%t] host_shared () : memref<4xf32> loc("op3")
  %t2 = gpu.memset async [%t] %b, %v : memref<4xi64>, i64 loc("op4")
  scf.if %c {
    gpu.memset %b, %w : memref<4xf32>, f32 loc("op5")
  }
  %h = gpu.alloc host_shared () : memref<4xf32> loc("op6")
}
""")
    plain, region = ["gpu-to-llvm"], ["func.func(gpu-async-region)", "gpu-to-llvm"]
    assert precondition(src.by_id("op1"), plain) == SYNC
    assert precondition(src.by_id("op5"), plain) == SYNC  # in a branch or not
    assert precondition(src.by_id("op2"), plain) == NOT_ONE_DEP
    assert precondition(src.by_id("op3"), plain) == ASYNC_SHARED
    assert precondition(src.by_id("op4"), plain) == MEMSET64
    assert precondition(src.by_id("op6"), region) == REGION_SHARED


def test_upstream_mapping() -> None:
    sync = upstream_of(SYNC_OP, "limitation", "gpu-to-llvm")
    assert "llvm/llvm-project#191661" in [r["ref"] for r in sync]
    assert all(r["url"].startswith("https://github.com/llvm/llvm-project/") for r in sync)
    assert upstream_of(LEAK, "defect", "gpu-to-llvm") == []  # none found upstream
    assert upstream_of(RACE, "defect", "gpu-to-llvm") == []


def test_structural_and_differential_views_are_one_bucket(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gpu_alloc_verify.verify.triage.buckets as buckets_mod

    prog = _program(1)
    leak = {"invariant": "stream-no-leak", "program": prog, "lowering": "mlir-opt-19"}
    diff = {"invariant": "differential", "program": prog, "lowering": "mlir-opt-19"}
    sigs = {"stream-no-leak": LEAK, "differential": DIFF}
    monkeypatch.setattr(buckets_mod, "signature_of", lambda v, p=None: sigs[v["invariant"]])
    builder = _Builder(["c1"])
    buckets_mod._add_program(builder, _Campaign("c1"), [leak, diff], "gpu-to-llvm", None, "p0")
    [b] = organize(list(builder.buckets.values()))
    assert (b.signature, b.confirmed) == (LEAK, True)
    # Alone, the differential view is a root cause of its own.
    builder = _Builder(["c1"])
    buckets_mod._add_program(builder, _Campaign("c1"), [diff], "gpu-to-llvm", None, "p1")
    assert [b.signature for b in organize(list(builder.buckets.values()))] == [DIFF]


@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_triage_json_on_a_real_campaign(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    # One pipeline: under fuzz's portfolio a limitation is one root cause per pipeline.
    assert main(["fuzz", "--lowering", "mlir-opt-19", "--max-examples", "40", "--seed", "1",
                 "--pipeline", DEFAULT_PIPELINE, "--results", str(results), "--json"]) == 1
    capsys.readouterr()
    assert main(["triage", str(results), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("gpu_alloc_verify.verify").joinpath(
        "schema/triage.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(summary)
    top = summary["buckets"]
    assert top and all({"kind", "pass", "upstream", "knock_ons"} <= set(b) for b in top)
    kinds = [b["kind"] for b in top]
    assert "knock-on" not in kinds and kinds == sorted(kinds, key=["defect",
                                                                   "limitation"].index)
    # One limitation per precondition, not per op shape.
    slugs = [b["slug"] for b in top if b["kind"] == "limitation"]
    assert len(slugs) == len(set(slugs)) and "unconverted-sync-op" in slugs
    programs = [b["example"]["program"] for b in top if b["example"]]
    assert len(programs) == len(set(programs))
    assert main(["triage", str(results)]) == 0
    text = capsys.readouterr().out
    assert "limitation: unconverted-sync-op" in text and "upstream   llvm/llvm-project#" in text
