"""A same-stream order inversion is confirmed by execution, through the CLI.

Real `mlir-opt-19` lowers a program whose second memset depends on the
first's token; a wrapper moves the first `mgpuMemset32` call just below the
second (both on the one stream).  The two buffers end the same either way
and nothing races: only checking the source's happens-before edges on the
run (`verify.invariants.order_truth`) shows the inversion.  Before, witness
validation turned the analysis's correct `violated` into `unknown`.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from tests.conftest import need_mlir_opt

SOURCE = """func.func @main() {
  %cst = arith.constant 7 : i32
  %t0 = gpu.wait async
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xi32>
  %b, %t2 = gpu.alloc async [%t1] () : memref<16xi32>
  %t3 = gpu.memset async [%t2] %a, %cst : memref<16xi32>, i32
  %t4 = gpu.memset async [%t3] %b, %cst : memref<16xi32>, i32
  %t5 = gpu.dealloc async [%t4] %a : memref<16xi32>
  %t6 = gpu.dealloc async [%t5] %b : memref<16xi32>
  gpu.wait [%t6]
  return
}
"""
# Runs the real mlir-opt, then moves the first memset call below the second.
INVERT = r'''
import subprocess
import sys

proc = subprocess.run([REAL, *sys.argv[1:]], input=sys.stdin.read(), capture_output=True,
                      text=True)
lines = proc.stdout.splitlines(keepends=True)
calls = [i for i, line in enumerate(lines) if "callee = @mgpuMemset32" in line]
if len(calls) >= 2:
    lines.insert(calls[1], lines.pop(calls[0]))
sys.stdout.write("".join(lines))
sys.stderr.write(proc.stderr)
sys.exit(proc.returncode)
'''


def _lowering(tmp_path: Path, invert: bool) -> str:
    real = need_mlir_opt(19)
    script = tmp_path / ("invert-mlir-opt" if invert else "plain-mlir-opt")
    body = INVERT if invert else INVERT.replace("if len(calls) >= 2:", "if False:")
    script.write_text(f"#!{sys.executable}\nREAL = {real!r}\n{body}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"mlir-opt:{script}"


def _order(tmp_path: Path, invert: bool, capsys: pytest.CaptureFixture[str]) -> dict:
    src = tmp_path / "prog.mlir"
    src.write_text(SOURCE)
    main(["check", str(src), "--lowering", _lowering(tmp_path, invert),
          "--invariant", "async-order", "--json"])
    out = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.slow
def test_inverted_memsets_are_violated_confirmed_by_execution(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _order(tmp_path, True, capsys)
    assert out["unknown"] == []
    [v] = out["violations"]
    assert v["invariant"] == "async-order"
    text = json.dumps(v)
    assert "confirmed by execution" in text and "not confirmed" not in text
    assert "can start before" in text and "its token" in text


@pytest.mark.slow
def test_the_real_order_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _order(tmp_path, False, capsys)
    assert out["violations"] == [] and out["unknown"] == []


def _generated_inversion_source() -> str:
    """A program the generator draws (for what 19 lowers) in which one
    memset depends on another's token: Hypothesis finds and shrinks it."""
    from hypothesis import find, settings

    from gpu_alloc_verify.generators.programs import GenConfig, programs
    from gpu_alloc_verify.verify.model import program as prog

    def dependent_memsets(p: prog.Program) -> bool:
        sets = [op for op in p.walk() if isinstance(op, prog.Memset) and op.token
                and op.type.elem in ("f32", "i32")]
        return any(a.token in b.deps for a in sets for b in sets)

    cfg = GenConfig(max_ops=6, kernels=False, host_buffers=False, memref_args=False,
                    scalar_args=False, results=False, memory_spaces=False,
                    dynamic_shapes=False).supported_by(19)
    found = find(programs(cfg), dependent_memsets,
                 settings=settings(database=None, derandomize=True, max_examples=5000))
    return found.to_mlir()


@pytest.mark.slow
def test_a_generated_programs_inverted_memsets_are_violated_confirmed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "generated.mlir"
    src.write_text(_generated_inversion_source())
    main(["check", str(src), "--lowering", _lowering(tmp_path, True),
          "--invariant", "async-order", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["unknown"] == [], out
    [v] = out["violations"]
    text = json.dumps(v)
    assert "confirmed by execution" in text and "not confirmed" not in text, text
    main(["check", str(src), "--lowering", _lowering(tmp_path, False),
          "--invariant", "async-order", "--json"])
    plain = json.loads(capsys.readouterr().out)
    assert plain["violations"] == [] and plain["unknown"] == [], plain
