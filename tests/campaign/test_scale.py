"""Scale through the real CLI (issue 26): a chain of 1,200 async ops, which
once raised RecursionError, is decided, and so are files of 5,000 ops in
the shapes `scripts/scale_check.py` measures (a chain, 1,000 streams, 100
helpers called in turn).  Timings and memory belong to that script, not to
tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from scripts.scale_check import SHAPES
from scripts.scale_check import chain as _chain


@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_a_1200_op_token_chain_is_decided(tmp_path: Path) -> None:
    f = tmp_path / "chain.mlir"
    f.write_text(_chain(1200))
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(f),
                           "--lowering", "mlir-opt-19"], capture_output=True, text=True,
                          timeout=600)
    assert "RecursionError" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "0 violated, 0 unknown" in proc.stdout


# CI decides each shape at 1,000 ops; the nightly job at the 5,000
# (about 10 s each here, a third of CI's budget for the three).
@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
@pytest.mark.parametrize("shape", ["chain", "fan", "helpers"])
def test_a_1000_op_file_is_decided(tmp_path: Path, shape: str) -> None:
    _decided(tmp_path, shape, 1000)


@pytest.mark.nightly
@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
@pytest.mark.parametrize("shape", ["chain", "fan", "helpers"])
def test_a_5000_op_file_is_decided(tmp_path: Path, shape: str) -> None:
    _decided(tmp_path, shape, 5000)


def _decided(tmp_path: Path, shape: str, ops: int) -> None:
    f = tmp_path / f"{shape}.mlir"
    f.write_text(SHAPES[shape](ops))
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(f),
                           "--lowering", "mlir-opt-19", "--invariant", "async-order",
                           "--invariant", "stream-no-leak", "--invariant", "differential"],
                          capture_output=True, text=True, timeout=900)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "0 violated, 0 unknown, 3 holds" in proc.stdout, proc.stdout[-2000:]
