"""Slicing (issue 26): host loops with no effect the invariants see are
summarized, not unrolled; loops that do have one keep unroll-and-cut.
Through the real CLI on the real `mlir-opt-19` / `-22`, on files in the
shape of GPU host code: an init loop, gpu work, a verify loop."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import need_mlir_opt

SCF = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
CF = "gpu.module(convert-gpu-to-nvvm),convert-scf-to-cf,gpu-to-llvm"
CHECKED = ("stream-no-leak", "stream-no-use-after-destroy", "event-no-leak",
           "host-shared-flag", "async-order", "runtime-contract", "lowering-complete")

KERNEL = """
  gpu.module @k {
    gpu.func @scale(%buf: memref<1000xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<1000xf32>
      %r = arith.addf %v, %v : f32
      memref.store %r, %buf[%i] : memref<1000xf32>
      gpu.return
    }
  }"""

# Init loop filling a host buffer, copy in, launch, copy out, wait, verify
# loop reading the result back (its sum is returned, so no version drops it).
INIT_VERIFY = """module attributes {gpu.container_module} {KERNEL_HERE
  func.func @main() -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %one = arith.constant 1.0 : f32
    %h = memref.alloc() : memref<1000xf32>
    scf.for %i = %c0 to %c1000 step %c1 {
      %x = arith.index_cast %i : index to i32
      %f = arith.sitofp %x : i32 to f32
      %y = arith.addf %f, %one : f32
      memref.store %y, %h[%i] : memref<1000xf32>
    }
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<1000xf32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<1000xf32>, memref<1000xf32>
    %t3 = gpu.launch_func async [%t2] @k::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1000, %c1, %c1) args(%d : memref<1000xf32>)
    %t4 = gpu.memcpy async [%t3] %h, %d : memref<1000xf32>, memref<1000xf32>
    %t5 = gpu.dealloc async [%t4] %d : memref<1000xf32>
    gpu.wait [%t5]
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %h[%j] : memref<1000xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.dealloc %h : memref<1000xf32>
    return %sum : f32
  }
}
""".replace("KERNEL_HERE", KERNEL)

# A host_shared buffer the host writes in a loop, a kernel reads and writes
# on a stream, and the host reads back in a loop after the wait: the loops'
# accesses are what async-order orders against the kernel.
HOST_SHARED = """module attributes {gpu.container_module} {KERNEL_HERE
  func.func @main() -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %one = arith.constant 1.0 : f32
    %b = gpu.alloc host_shared () : memref<1000xf32>
    scf.for %i = %c0 to %c1000 step %c1 {
      memref.store %one, %b[%i] : memref<1000xf32>
    }
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1000, %c1, %c1) args(%b : memref<1000xf32>)
    gpu.wait [%t]
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %b[%j] : memref<1000xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    return %sum : f32
  }
}
""".replace("KERNEL_HERE", KERNEL)
READ_IN_LOOP = "26:12"  # the memref.load of the verify loop in HOST_SHARED

# A stream created and destroyed in each of 1000 iterations: a runtime call
# in the body, so the loop is unrolled and cut as before.
RUNTIME_IN_LOOP = """module {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    scf.for %i = %c0 to %c1000 step %c1 {
      %s = gpu.wait async
      gpu.wait [%s]
    }
    return
  }
}
"""

# A host loop calling a function the analysis cannot see (it may call the
# runtime): not summarized.
EXTERNAL_IN_LOOP = """module {
  func.func private @fill_row(index)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %s = gpu.wait async
    scf.for %i = %c0 to %c1000 step %c1 {
      func.call @fill_row(%i) : (index) -> ()
    }
    gpu.wait [%s]
    return
  }
}
"""

# A host loop calling a helper of the module that fills a buffer with no
# runtime call (callees are followed transitively): summarized.
HELPER_IN_LOOP = """module {
  func.func @put(%m: memref<1000xi32>, %i: index) {
    %x = arith.index_cast %i : index to i32
    memref.store %x, %m[%i] : memref<1000xi32>
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %h = memref.alloc() : memref<1000xi32>
    scf.for %i = %c0 to %c1000 step %c1 {
      func.call @put(%h, %i) : (memref<1000xi32>, index) -> ()
    }
    %s = gpu.wait async
    gpu.wait [%s]
    memref.dealloc %h : memref<1000xi32>
    return
  }
}
"""


def check(tmp_path: Path, text: str, lowering: str, pipeline: str) -> dict[str, Any]:
    src = tmp_path / "host.mlir"
    src.write_text(text)
    r = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(src), "--lowering",
                        lowering, "--pipeline", pipeline, "--json"],
                       capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode in (0, 1, 3), r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def verdicts(out: dict[str, Any], lowering: str) -> dict[str, str]:
    return {inv: next(v for v, n in counts.items() if n)
            for inv, counts in out["by_lowering"][lowering].items()}


def loop_unknowns(out: dict[str, Any]) -> list[str]:
    return [u["reason"] for u in out["unknown"]
            if "not explored" in u["reason"] and "loop" in u["reason"]]


@pytest.mark.slow
@pytest.mark.parametrize("version", [19, 22])
@pytest.mark.parametrize("pipeline", [SCF, CF], ids=["scf", "cf"])
def test_init_and_verify_loops_are_summarized(tmp_path: Path, version: int,
                                              pipeline: str) -> None:
    need_mlir_opt(version)
    lowering = f"mlir-opt-{version}"
    out = check(tmp_path, INIT_VERIFY, lowering, pipeline)
    got = verdicts(out, lowering)
    assert {inv: got[inv] for inv in CHECKED} == dict.fromkeys(CHECKED, "holds"), out["unknown"]
    assert not loop_unknowns(out)
    assert not out["analysis_defects"]  # execution agrees with every `holds`


@pytest.mark.slow
@pytest.mark.parametrize("pipeline", [SCF, CF], ids=["scf", "cf"])
def test_host_shared_loops_keep_their_accesses(tmp_path: Path, pipeline: str) -> None:
    # Were the loops' accesses summarized away, async-order would say the
    # host read "has no lowered access" (unknown), not holds.
    need_mlir_opt(19)
    out = check(tmp_path, HOST_SHARED, "mlir-opt-19", pipeline)
    got = verdicts(out, "mlir-opt-19")
    assert got["async-order"] == "holds", out["unknown"]
    assert got["stream-no-leak"] == "holds"
    assert not loop_unknowns(out)


@pytest.mark.slow
@pytest.mark.parametrize("pipeline", [SCF, CF], ids=["scf", "cf"])
def test_summarized_read_loop_still_races(tmp_path: Path, mutant: Any, pipeline: str) -> None:
    # The lowering loses the wait before the verify loop: its read (one
    # iteration standing for all) races with the kernel, and is named.
    opt = mutant("drop-synchronize")
    lowering = f"mlir-opt:{opt}"
    out = check(tmp_path, HOST_SHARED, lowering, pipeline)
    assert verdicts(out, lowering)["async-order"] == "violated", out["unknown"]
    found = [v for v in out["violations"] if v["invariant"] == "async-order"]
    assert any(f"host.mlir:{READ_IN_LOOP}" in json.dumps(v) for v in found), found


@pytest.mark.parametrize("version", [19, 22])
def test_runtime_call_in_loop_is_summarized_not_cut(tmp_path: Path, version: int) -> None:
    """Each iteration makes and destroys its own stream: a closed loop (issue
    26), summarized by one iteration; only the order across iterations
    stays unknown."""
    need_mlir_opt(version)
    lowering = f"mlir-opt-{version}"
    out = check(tmp_path, RUNTIME_IN_LOOP, lowering, "gpu-to-llvm")
    assert verdicts(out, lowering)["stream-no-leak"] == "holds"
    assert not any("runs more than 4 iterations" in r for r in loop_unknowns(out))
    assert verdicts(out, lowering)["async-order"] in ("unknown", "not-applicable")


@pytest.mark.parametrize("pipeline", ["gpu-to-llvm", "convert-scf-to-cf,gpu-to-llvm"],
                         ids=["scf", "cf"])
def test_external_call_given_no_handle_in_loop_is_summarized(tmp_path: Path,
                                                         pipeline: str) -> None:
    # Given no handle, the external call cannot reach %s (as when the loop
    # is unrolled, 3 iterations: holds): the loop is closed (issue 26).
    need_mlir_opt(19)
    out = check(tmp_path, EXTERNAL_IN_LOOP, "mlir-opt-19", pipeline)
    assert verdicts(out, "mlir-opt-19")["stream-no-leak"] == "holds"


@pytest.mark.slow
@pytest.mark.parametrize("pipeline", ["gpu-to-llvm", "convert-scf-to-cf,gpu-to-llvm"],
                         ids=["scf", "cf"])
def test_module_helper_without_effect_is_summarized(tmp_path: Path, pipeline: str) -> None:
    need_mlir_opt(19)
    out = check(tmp_path, HELPER_IN_LOOP, "mlir-opt-19", pipeline)
    got = verdicts(out, "mlir-opt-19")
    assert got["stream-no-leak"] == "holds", out["unknown"]
    assert got["stream-no-use-after-destroy"] == "holds"
    assert not loop_unknowns(out)
