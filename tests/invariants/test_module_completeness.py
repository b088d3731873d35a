"""`lowering-complete` is a property of the module (issue 26).

Real host code initialises host buffers in loops of hundreds of iterations
before any GPU work; the extractor cuts such loops at its unroll bound, and
the code after them lies only on cut paths.  A leftover op there is still a
fact of the module: violated, never `unknown`.  A module with no leftover
holds, whatever was cut.  Through the real CLI and real mlir-opt-19/22.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpu_alloc_verify.verify.extract.leftovers import module_residue
from tests.conftest import need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]

# An init loop (256 iterations, past the unroll bound of 4) over a host
# buffer, then the GPU work; {gpu} is put after the loop.
INIT_THEN = """\
func.func @fill_and_upload(%host: memref<256xf32>, %v: f32, %n: index, %x: i64) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c256 step %c1 {{
    memref.store %v, %host[%i] : memref<256xf32>
  }}
{gpu}
  return
}}
"""

# Left unconverted by 19 and 22: a synchronous alloc without host_shared.
SYNC_ALLOC = """\
  %scratch = gpu.alloc (%n) : memref<?xf32>
  %t0 = gpu.wait async
  %t1 = gpu.dealloc async [%t0] %scratch : memref<?xf32>
  gpu.wait [%t1]"""

# Left unconverted by 19 and 22: a 64-bit memset (no runtime has mgpuMemset64).
MEMSET_I64 = """\
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] (%n) : memref<?xi64>
  %t2 = gpu.memset async [%t1] %d, %x : memref<?xi64>, i64
  %t3 = gpu.dealloc async [%t2] %d : memref<?xi64>
  gpu.wait [%t3]"""

# Fully lowered by 19 and 22.
COMPLETE = """\
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<256xf32>
  %t2 = gpu.memcpy async [%t1] %d, %host : memref<256xf32>, memref<256xf32>
  %t3 = gpu.dealloc async [%t2] %d : memref<256xf32>
  gpu.wait [%t3]"""


def check(tmp_path: Path, text: str, version: int) -> tuple[int, dict[str, Any]]:
    need_mlir_opt(version)
    f = tmp_path / "host.mlir"
    f.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(f), "--lowering",
                           f"mlir-opt-{version}", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def verdict(out: dict[str, Any], version: int, invariant: str) -> str:
    counts = out["by_lowering"][f"mlir-opt-{version}"][invariant]
    return next(v for v, n in counts.items() if n)


@pytest.mark.slow
@pytest.mark.parametrize("version", [19, 22])
@pytest.mark.parametrize(("gpu", "op", "line"), [(SYNC_ALLOC, "gpu.alloc", 8),
                                                 (MEMSET_I64, "gpu.memset", 10)])
def test_leftover_after_a_long_loop_is_violated(tmp_path: Path, version: int, gpu: str,
                                                op: str, line: int) -> None:
    rc, out = check(tmp_path, INIT_THEN.format(gpu=gpu), version)
    assert verdict(out, version, "lowering-complete") == "violated"
    assert rc == 1
    [v] = [v for v in out["violations"] if v["invariant"] == "lowering-complete"
           and v["detail"].startswith(op)]
    # Mapped to the source op by its location, as lowered calls are.
    assert f"host.mlir:{line}:" in v["detail"]


@pytest.mark.slow
@pytest.mark.parametrize("version", [19, 22])
def test_no_leftover_holds_whatever_was_cut(tmp_path: Path, version: int) -> None:
    rc, out = check(tmp_path, INIT_THEN.format(gpu=COMPLETE), version)
    assert verdict(out, version, "lowering-complete") == "holds"
    assert rc in (0, 3)
    assert not [u for u in out["unknown"] if u["invariant"] == "lowering-complete"]


@pytest.mark.slow
def test_every_copy_in_every_function_counts_once(tmp_path: Path) -> None:
    # A leftover in a helper no one calls (code the explorer never reaches
    # from the entry) and two in one function: one violation per source op.
    text = INIT_THEN.format(gpu=SYNC_ALLOC) + """\
func.func private @unused(%n: index) {
  %m = gpu.alloc (%n) : memref<?xf32>
  return
}
"""
    rc, out = check(tmp_path, text, 19)
    found = [v["detail"] for v in out["violations"] if v["invariant"] == "lowering-complete"]
    assert rc == 1
    assert any("@unused" in d and "host.mlir:15:" in d for d in found), found
    assert len(found) == len(set(found))


# -- the scan itself: iterative, every region and block ------------------------

def _op(name: str, *regions: list[list[Any]], token: bool = False, loc: str | None = None,
        sym: str | None = None) -> Any:
    results = [SimpleNamespace(type="!gpu.async.token")] if token else []
    return SimpleNamespace(
        name=name, results=results, operands=[],
        regions=[SimpleNamespace(blocks=[SimpleNamespace(ops=b) for b in r]) for r in regions],
        attributes={"sym_name": sym} if sym else {}, properties={},
        location=SimpleNamespace(name_loc=loc) if loc else None)


def test_scan_is_iterative_and_sees_every_block() -> None:
    inner: Any = _op("gpu.wait")
    for _ in range(5000):  # far deeper than Python's recursion limit
        inner = _op("scf.execute_region", [[_op("arith.addi"), inner]])
    # Blocks past the entry are scanned too.
    fn = _op("llvm.func", [[inner], [_op("llvm.br")], [_op("foo.op", token=True)]], sym="f")
    device = _op("gpu.module", [[_op("gpu.alloc")]])  # device code: not converted here
    module = SimpleNamespace(body=SimpleNamespace(blocks=[SimpleNamespace(ops=[fn, device])]))
    found = module_residue(module)
    assert [(r.what, r.func) for r in found] == [
        ("gpu.wait", "f"), ("!gpu.async.token result of foo.op", "f")]
