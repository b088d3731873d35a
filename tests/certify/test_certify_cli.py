"""`certify` through the real CLI: a fixed lowering certified clean, a
certificate that fits its schema, and a run killed mid-way and resumed
giving the same certificate as an uninterrupted one."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from gpu_alloc_verify.verify.certify.certificate import comparable, schema
from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.tools.runner import find_mlir_opt

CLI = [sys.executable, "-m", "gpu_alloc_verify", "certify"]


def _certify(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "--out", str(out), *args], capture_output=True, text=True,
                          timeout=600)


def _cert(out: Path) -> dict:
    return json.loads((out / "certificate.json").read_text())


def test_the_reference_lowering_is_certified_clean(tmp_path: Path) -> None:
    proc = _certify(tmp_path, "--ops", "2", "--lowering", "xdsl:reference")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cert = _cert(tmp_path)
    jsonschema.validate(cert, schema())
    assert cert["complete"] and cert["enumeration"]["programs"] == 221
    assert cert["enumeration"]["digest"] == enumerate_bound(2).digest
    (target,) = cert["targets"]
    assert target["programs"] == 221 and target["violations"] == []
    assert "violated" not in {v for per in target["verdicts"].values() for v in per}
    assert (tmp_path / "certificate.html").read_text().count("<h2>") >= 2
    assert "certificate: 221 programs of up to 2 op(s)" in proc.stdout
    # Its results file is this bound's: another bound is refused, not mixed in.
    other = _certify(tmp_path, "--ops", "1", "--lowering", "xdsl:reference")
    assert other.returncode == 2
    assert "another bound" in other.stderr and "Traceback" not in other.stderr


@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_upstream_19_violations_come_under_root_causes(tmp_path: Path) -> None:
    proc = _certify(tmp_path, "--ops", "2", "--lowering", "mlir-opt-19")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # violations found
    cert = _cert(tmp_path)
    causes = {c["cause"] for t in cert["targets"] for c in t["violations"]}
    # 19 lowers no async op without exactly one dependency, and no sync op.
    assert {"unconverted-async-not-one-dep", "unconverted-sync-op"} <= causes
    for t in cert["targets"]:
        for u in t["unknowns"]:
            assert u["reason"] and "Error" not in u["reason"]


@pytest.mark.nightly
def test_a_killed_run_resumes_to_the_same_certificate(tmp_path: Path) -> None:
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert _certify(whole, "--ops", "2", "--lowering", "xdsl:reference").returncode == 0
    proc = subprocess.Popen([*CLI, "--out", str(killed), "--ops", "2", "--lowering",
                             "xdsl:reference"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    results = killed / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # kill it once some programs are recorded
        if results.exists() and results.read_text().count("certify-program") >= 20:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    recorded = results.read_text().count("certify-program")
    assert 0 < recorded < 221, recorded
    again = _certify(killed, "--ops", "2", "--lowering", "xdsl:reference")
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr
    assert comparable(_cert(killed)) == comparable(_cert(whole))
    assert results.read_text().count("certify-program") == 221  # none judged twice
