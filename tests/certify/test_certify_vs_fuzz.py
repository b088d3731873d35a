"""scripts/certify_vs_fuzz.py end to end: a real certificate (N = 2, upstream
19, gpu-to-llvm), a real default fuzz campaign at that size, triage, and the
comparison; every fuzz-only root cause is placed in or out of the
certificate's scope with a reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.tools.runner import find_mlir_opt

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.nightly
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_fuzz_root_causes_are_placed_against_a_certificate(tmp_path: Path) -> None:
    cert = tmp_path / "cert"
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "certify", "--ops", "2",
                           "--lowering", "mlir-opt-19", "--pipeline", DEFAULT_PIPELINE,
                           "--out", str(cert)], capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "certify_vs_fuzz.py"),
                           "--certificate", str(cert / "certificate.json"), "--seeds", "1",
                           "--programs", "40", "--out", str(tmp_path / "fuzz")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    out = proc.stdout
    assert "N = 2, 221 programs" in out
    for head in ("FOUND BY BOTH", "ONLY BY FUZZ", "ONLY BY THE CERTIFICATE"):
        assert head in out
    # Each fuzz-only cause says where it stands: outside (why) or in scope.
    section = out.split("ONLY BY FUZZ")[1].split("ONLY BY THE CERTIFICATE")[0]
    causes = [ln for ln in section.splitlines() if ln.startswith("  ") and
              not ln.startswith("    ")]
    placed = section.count("outside the certificate:") + section.count("IN SCOPE")
    assert placed == len(causes)
    assert ("FAIL" in out) == (proc.returncode == 1) == ("IN SCOPE" in section)
