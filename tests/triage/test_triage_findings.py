"""The findings catalogue: root causes across versions and pipelines, each with
versions affected, minimal program, lit test and a likely fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.reports.findings import catalogue, findings_of, likely_fix
from gpu_alloc_verify.repro.export import export_bucket
from gpu_alloc_verify.repro.proof import find_filecheck
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.triage.buckets import triage_records

LEAKY = """\
module {
  func.func @f0() {
    %t1 = gpu.wait async loc("op1")
    %t2 = gpu.wait async [%t1] loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
}
"""


def _campaign(cid: str, lowering: str, pipeline: str) -> list[dict[str, Any]]:
    return [{"kind": "campaign-start", "campaign": cid, "lowerings": [lowering],
             "pipeline": pipeline},
            {"kind": "program", "campaign": cid, "id": f"{cid}-p0", "program": LEAKY,
             "results": {lowering: {"status": "ok", "verdicts": {
                 "stream-no-leak": "violated"}}}}]


@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None or find_mlir_opt(22) is None
                    or find_filecheck() is None, reason="needs mlir-opt-19, -22, FileCheck")
def test_one_finding_across_versions_and_pipelines(tmp_path: Path) -> None:
    records = (_campaign("a", "mlir-opt-19", "gpu-to-llvm")
               + _campaign("b", "mlir-opt-22", "gpu-to-llvm")
               + _campaign("c", "mlir-opt-19", "convert-scf-to-cf,gpu-to-llvm"))
    triage = triage_records(records)
    assert len(triage.buckets) == 2  # one per pipeline
    [finding] = findings_of(triage)
    assert finding.lowerings() == ["mlir-opt-19", "mlir-opt-22"]
    assert finding.pipelines() == ["gpu-to-llvm", "convert-scf-to-cf,gpu-to-llvm"]
    assert finding.count == 3
    assert "mgpuStreamDestroy" in likely_fix(finding.lead)
    test = export_bucket(finding.lead, tmp_path / "lit")
    assert test.written
    out = tmp_path / "FINDINGS.md"
    text = catalogue(triage, {finding.lead.key: test}, out, ["mlir-opt-19", "mlir-opt-22"],
                     ["gpu-to-llvm"], 10, tmp_path / "lit")
    assert out.read_text() == text
    assert "## Defects\n\n### 1. stream-leak-wait-async-dep" in text
    assert "- Severity: leak; rules that see it: `stream-no-leak`" in text
    # Versions re-checked on the reproducer, not read off the campaigns.
    assert "- Versions: reproduces on mlir-opt-16, mlir-opt-19, mlir-opt-22 (the reproducer " \
           "re-checked" in text or find_mlir_opt(16) is None
    assert "  - with `gpu-to-llvm`: `gpu-to-llvm` (the first pass whose output shows it)" in text
    assert "- Component: `mlir/lib/Conversion/GPUCommon/GPUToLLVMConversion.cpp`" in text
    assert "[lit/stream-leak-wait-async-dep.mlir](lit/stream-leak-wait-async-dep.mlir), a " \
           "`-split-input-file` case for upstream's `mlir/test/Conversion/GPUCommon/" \
           "lower-wait-to-gpu-runtime-calls.mlir`" in text
    assert "passes on xdsl:reference" in text
    assert "- Patch: [patches/19/wait-async-stream-leak.patch]" in text \
        or not (Path(__file__).resolve().parents[2] / "patches").is_dir()
    assert "```mlir\nfunc.func @stream_leak_wait_async_dep() {\n  %t1 = gpu.wait async\n" in text
