"""Lit export that stands review: tests named after the root cause, minimal
source without harness noise, CHECK lines in custom form, proven not vacuous
(fails on the buggy lowering at the defect line, the defect is in its output,
passes on the fixed lowering), and a lit.cfg.py that `lit -v DIR` runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.repro.checks import Directive, Plan
from gpu_alloc_verify.repro.export import export_buckets, lit_pipeline, render
from gpu_alloc_verify.repro.proof import Lowered, find_filecheck, prove
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.triage.buckets import triage_records
from gpu_alloc_verify.verify.triage.reduce import (
    candidates,
    host_buffers,
    reduce_text,
    signature_predicate,
)
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for

FILECHECK = find_filecheck()
MLIR_OPT_19 = find_mlir_opt(19)
needs_filecheck = pytest.mark.skipif(FILECHECK is None, reason="no FileCheck (apt-get install "
                                     "llvm-19-tools, or pip install filecheck)")
needs_19 = pytest.mark.skipif(MLIR_OPT_19 is None or FILECHECK is None,
                              reason="needs mlir-opt-19 and FileCheck")

LEAKY = """\
module {
  func.func @f0(%size0: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t1 = gpu.wait async loc("op1")
    %t2 = gpu.wait async [%t1] loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
  func.func @f1() {
    %t4 = gpu.wait async loc("op4")
    gpu.wait [%t4] loc("op5")
    return
  }
}
"""
SYNC_ALLOC = """\
module {
  func.func @f0() {
    %c4 = arith.constant 4 : index
    %m1 = gpu.alloc () : memref<4xf32> loc("op1")
    return
  }
}
"""

# -- the proof ----------------------------------------------------------------------

ALLOC_TEST = """\
// RUN: mlir-opt %s | FileCheck %s
module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.call @mgpuMemAlloc(
  func.func @f0() {
    return
  }
}
"""
WITNESS = ALLOC_TEST.replace("CHECK-NOT: gpu.alloc", "CHECK: gpu.alloc").replace(
    "CHECK: llvm.call", "CHECK-NOT: llvm.call")
LEFT = "llvm.func @f0() {\n  %0 = gpu.alloc () : memref<4xf32>\n  llvm.return\n}\n"
FIXED = "llvm.func @f0() {\n  %0 = llvm.call @mgpuMemAlloc(%1, %2, %3)\n  llvm.return\n}\n"
ERASED = "llvm.func @f0() {\n  llvm.return\n}\n"


@needs_filecheck
def test_proof_accepts_a_test_that_pins_the_defect() -> None:
    assert FILECHECK is not None
    proof = prove(FILECHECK, ALLOC_TEST, WITNESS, {4, 5}, "buggy", Lowered(True, LEFT),
                  "fixed", Lowered(True, FIXED))
    assert proof.proven and proof.failed_line in (4, 5) and proof.passes_on_fixed
    assert proof.summary().startswith("fails on buggy at line")


@needs_filecheck
def test_proof_refuses_a_test_that_sees_an_erased_op() -> None:
    """The test fails on output where the op was erased, but the defect is not
    there to see: the witness (the defect lines negated) fails, so no proof."""
    assert FILECHECK is not None
    proof = prove(FILECHECK, ALLOC_TEST, WITNESS, {4, 5}, "buggy", Lowered(True, ERASED),
                  "fixed", Lowered(True, FIXED))
    assert not proof.proven and not proof.witness
    assert "the defect is not in buggy's output" in proof.summary()
    vacuous = ALLOC_TEST.replace("  // CHECK: llvm.call @mgpuMemAlloc(\n", "")
    proof = prove(FILECHECK, vacuous, vacuous, {4}, "buggy", Lowered(True, ERASED), None, None)
    assert not proof.proven and not proof.fails_on_buggy  # it would pass: vacuous


@needs_filecheck
def test_proof_refuses_failures_before_the_defect_and_on_the_fix() -> None:
    assert FILECHECK is not None
    early = ALLOC_TEST.replace("llvm.func @f0(", "llvm.func @other(")
    proof = prove(FILECHECK, early, early, {4, 5}, "buggy", Lowered(True, LEFT), None, None)
    assert not proof.proven and proof.failed_line == 3 and not proof.at_defect
    proof = prove(FILECHECK, ALLOC_TEST, WITNESS, {4, 5}, "buggy", Lowered(True, LEFT),
                  "fixed", Lowered(True, LEFT))
    assert not proof.proven and proof.passes_on_fixed is False


def test_render_places_checks_above_each_function() -> None:
    plan = Plan("p").add("f0", Directive("", "%[[H:[0-9a-z]+]] = llvm.call @mgpuStreamCreate()"),
                         Directive("", "llvm.call @mgpuStreamDestroy(%[[H]])", True, "Why:"))
    clean = "module {\n  func.func @f0() {\n    return\n  }\n  func.func @f1() {\n  }\n}\n"
    text, defects = render(clean, plan, ["// RUN: x", ""])
    lines = text.splitlines()
    assert lines[2:8] == ["module {", "  // CHECK-LABEL: llvm.func @f0(",
                          "  // CHECK: %[[H:[0-9a-z]+]] = llvm.call @mgpuStreamCreate()",
                          "  // Why:", "  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])",
                          "  func.func @f0() {"]
    assert defects == {7} and "  // CHECK-LABEL: llvm.func @f1(" in lines


# -- reduction ----------------------------------------------------------------------


def test_candidates_and_host_buffers() -> None:
    lines = LEAKY.splitlines()
    edits = candidates(lines)
    assert any(e.drop == frozenset({2}) for e in edits)  # %c0
    assert any(len(e.drop) == 5 for e in edits)  # the whole @f1
    assert any(e.replace and "@f0()" in e.replace[0][1] for e in edits)  # %size0 dropped
    assert host_buffers("func.func @f(%b: memref<?xf32>, %n: index) {\n}\n").splitlines() == [
        "func.func @f(%n: index) {", "  %b_d0 = arith.constant 4 : index",
        "  %b = gpu.alloc host_shared (%b_d0) : memref<?xf32>", "}"]


def test_an_unwrapped_region_body_moves_out_one_level() -> None:
    lines = ["func.func @f(%c: i1) {", "  scf.if %c {", "    %t = gpu.wait async",
             "  } else {", "    gpu.wait", "  }", "  return", "}"]
    unwraps = [e for e in candidates(lines) if e.drop == frozenset({1, 3, 4, 5})]
    assert [e.apply(lines) for e in unwraps] == [
        ["func.func @f(%c: i1) {", "  %t = gpu.wait async", "  return", "}"]]


@pytest.mark.skipif(find_mlir_opt() is None, reason="no mlir-opt to read programs")
def test_reduction_keeps_the_root_cause_and_drops_the_noise() -> None:
    settings = Settings("xdsl:pr69969", "gpu-to-llvm")
    records = _records([(LEAKY, ["stream-no-leak"])], "xdsl:pr69969")
    [bucket] = triage_records(records).buckets
    keeps = signature_predicate(settings, "stream-no-leak", bucket.key, lowering_for(settings))
    reduced = reduce_text(LEAKY, keeps)
    assert reduced == """\
module {
  func.func @f0() {
    %t1 = gpu.wait async loc("op1")
    %t2 = gpu.wait async [%t1] loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
}
"""


# -- end to end: triage, export, lit ------------------------------------------------


def _records(programs: list[tuple[str, list[str]]], lowering: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"kind": "campaign-start", "campaign": "c1", "time": 1.0,
                                  "lowerings": [lowering], "pipeline": "gpu-to-llvm"}]
    for k, (text, bad) in enumerate(programs):
        out.append({"kind": "program", "campaign": "c1", "id": f"c1-p{k}", "program": text,
                    "results": {lowering: {"status": "ok", "verdicts": dict.fromkeys(
                        bad, "violated")}}})
    return out


def _lit(directory: Path, *params: str) -> subprocess.CompletedProcess[str]:
    script = "import sys; from lit.main import main; sys.argv[0] = 'lit'; main()"
    return subprocess.run([sys.executable, "-c", script, "-v", str(directory), *params],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@needs_19
def test_exported_tests_fail_on_19_and_pass_on_split_api(tmp_path: Path) -> None:
    pytest.importorskip("lit")
    triage = triage_records(_records([(LEAKY, ["stream-no-leak"]),
                                      (SYNC_ALLOC, ["lowering-complete"])], "mlir-opt-19"))
    out = tmp_path / "lit"
    tests = export_buckets(triage.buckets, out)
    assert sorted(t.slug for t in tests) == ["stream-leak-wait-async-dep", "unconverted-sync-op"]
    assert all(t.written for t in tests), [t.reason for t in tests]
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md", "lit.cfg.py", "stream-leak-wait-async-dep.mlir", "unconverted-sync-op.mlir"]
    leak = (out / "stream-leak-wait-async-dep.mlir").read_text()
    # Minimal source, no harness noise; custom-form checks that pin the leak.
    assert 'loc("' not in leak and "%c0" not in leak and "@f1" not in leak
    assert "%size0" not in leak
    # Upstream's shape: its RUN line, a function named for the cause, no
    # bare module, each CHECK line above the op whose lowering it pins.
    assert leak.startswith("// RUN: mlir-opt %s --gpu-to-llvm -split-input-file"
                           " | FileCheck %s\n")
    assert "module {" not in leak and "@f0" not in leak
    checks = [ln.strip() for ln in leak.splitlines() if re.match(r"\s*// CHECK", ln)]
    assert checks == ["// CHECK-LABEL: llvm.func @stream_leak_wait_async_dep(",
                      "// CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()",
                      "// CHECK: llvm.call @mgpuStreamDestroy(%[[H]])"]
    lines = leak.splitlines()
    create = lines.index("  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()")
    assert lines[create + 1].strip() == "%t1 = gpu.wait async"
    # No tool provenance in the test (upstream's style); it is in the README.
    assert "gpu-alloc-verify" not in leak and "Verified" not in leak
    readme = (out / "README.md").read_text()
    assert "`stream-leak-wait-async-dep.mlir`: root cause" in readme
    assert "fails on mlir-opt-19 at line" in readme
    alloc = (out / "unconverted-sync-op.mlir").read_text()
    assert "// CHECK-NOT: gpu.alloc" in alloc and "// CHECK: llvm.call @mgpuMemAlloc(" in alloc
    # lit runs them: both fail on 19 (the bugs), both pass on the fixed lowering.
    on19 = _lit(out)
    assert on19.returncode == 1 and on19.stdout.count("FAIL: gpu-alloc-verify") == 2, on19.stdout
    fixed = _lit(out, "--param", "lowering=xdsl:reference")
    assert fixed.returncode == 0 and fixed.stdout.count("PASS: gpu-alloc-verify") == 2, \
        fixed.stdout + fixed.stderr


def test_pipeline_drops_kernel_passes_without_kernels() -> None:
    pipe = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
    assert lit_pipeline(pipe, SYNC_ALLOC) == "gpu-to-llvm"
    assert lit_pipeline(pipe, "gpu.module @k {}") == pipe


@needs_19
def test_triage_command_writes_lit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gpu_alloc_verify.verify.cli import main

    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _records(
        [(SYNC_ALLOC, ["lowering-complete"])], "mlir-opt-19")))
    assert main(["triage", str(results), "--lit", str(tmp_path / "lit")]) == 0
    out = capsys.readouterr().out
    assert "lit: 1 of 1 root cause(s) written" in out
    assert "unconverted-sync-op.mlir: fails on mlir-opt-19" in out
    assert (tmp_path / "lit" / "lit.cfg.py").is_file()


def test_the_committed_findings_lit_config_is_what_the_exporter_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/findings-lit/lit.cfg.py is the exporter's output, committed so that
    # `lit -v docs/findings-lit` runs; it must not drift from the template.
    # It finds its tools when lit runs (issue 44), so nothing of the machine
    # that wrote it is in it: the same text whoever writes it, wherever.
    from gpu_alloc_verify.repro.export import write_lit_config

    committed = (Path(__file__).resolve().parents[2] / "docs" / "findings-lit"
                 / "lit.cfg.py").read_text()
    monkeypatch.chdir(tmp_path)
    written = write_lit_config(tmp_path / "staging-dir", "mlir-opt-19").read_text()
    assert committed == written
    for machine in (str(tmp_path), "staging-dir", sys.executable, str(Path.cwd()),
                    str(Path(__file__).resolve().parents[2]), "FileCheck-1"):
        assert machine not in written, machine
