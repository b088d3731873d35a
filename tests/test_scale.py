"""Scale through the real CLI (issue 26): a chain of 1,200 async ops, which
once raised RecursionError, is decided (about 4 s here; timings belong to
`bench`, not to tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt


def _chain(n: int) -> str:
    lines = ["func.func @main() {",
             "  %t0 = gpu.wait async",
             "  %b, %t1 = gpu.alloc async [%t0] () : memref<64xf32>",
             "  %c = arith.constant 1.0 : f32"]
    prev = "%t1"
    for i in range(2, n):
        lines.append(f"  %t{i} = gpu.memset async [{prev}] %b, %c : memref<64xf32>, f32")
        prev = f"%t{i}"
    lines += [f"  %td = gpu.dealloc async [{prev}] %b : memref<64xf32>",
              "  gpu.wait [%td]", "  return", "}"]
    return "\n".join(lines) + "\n"


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
