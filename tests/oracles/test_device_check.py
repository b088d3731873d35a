"""The prepared device check (issue 45): scripts/gpu_differential.py with
`--stand-in` runs where CuPy or a GPU is missing, says so, and writes the
agreement table; `--prepare`/`--bundle` carry lowered corpus files to a
machine without mlir-opt.  (The GPU run itself: scripts/device_check.sh.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import need_mlir_opt

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_differential.py"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_a_bundle_runs_with_the_simulator_standing_in_and_fills_the_table(
        tmp_path: Path) -> None:
    need_mlir_opt(22)
    names = ["saxpy_sync_launch", "fanout_double_destroy"]
    prep = _run("--corpus", "--prepare", str(tmp_path), "--lowering", "mlir-opt-22", *names)
    assert prep.returncode == 0, prep.stderr
    table = tmp_path / "table.md"
    proc = _run("--corpus", "--bundle", str(tmp_path), "--lowering", "mlir-opt-22",
                "--stand-in", "--table", str(table), *names)
    from gpu_alloc_verify.oracles.cupy_runtime import cupy_available

    if not cupy_available():
        assert "the GPU side is a second simulator" in proc.stderr
        assert "simulator stand-in" in proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = table.read_text().splitlines()
    assert rows[0].startswith("| set | lowering | GPU side | compared | agree | disagree")
    # Both files reach a verdict on both sides and agree: holds and violated.
    cells = [c.strip() for c in rows[2].split("|")]
    assert cells[1:3] == ["tests/corpus", "mlir-opt-22"]
    assert cells[4:7] == ["2", "2", "0"]
    assert "holds 1" in cells[7] and "violated 1" in cells[7]


def test_without_stand_in_a_machine_lacking_cupy_still_skips(tmp_path: Path) -> None:
    from gpu_alloc_verify.oracles.cupy_runtime import cupy_available

    if cupy_available():
        pytest.skip("CuPy and a CUDA device are here")
    proc = _run("--corpus", "--bundle", str(tmp_path), "--lowering", "mlir-opt-22")
    assert proc.returncode == 2 and "skipped: no GPU/CuPy" in proc.stdout
