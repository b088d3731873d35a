"""An in-process lowering's output reads like mlir-opt's: xDSL's generic
`gpu.launch_func` and `gpu.module` come out in the custom syntax, which
mlir-opt 19 and 22 parse back, with the stream, sizes and arguments kept."""

from __future__ import annotations

import subprocess

import pytest

from gpu_alloc_verify.repro.lower_tool import lower_custom
from gpu_alloc_verify.verify.ir.custom_form import custom_gpu_ops
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt

KERNEL_PROGRAM = """\
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale_64xi64(%buf: memref<64xi64>, %factor: i64) kernel {
      gpu.return
    }
  }
  func.func @f0() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cst_i64_4 = arith.constant 4 : i64
    %m1, %t2 = gpu.alloc async host_shared () : memref<64xi64>
    %t6 = gpu.launch_func async [%t2] @kernels::@scale_64xi64 blocks in (%c1, %c1, %c1) \
threads in (%c64, %c1, %c1) args(%m1 : memref<64xi64>, %cst_i64_4 : i64)
    gpu.wait [%t6]
    return
  }
}
"""
GENERIC = ('    "gpu.launch_func"(%1, %1, %1, %2, %1, %1, %7, %cst, %5) <{kernel = @k::@f, '
           'operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 1>}> : '
           '(i64, i64, i64, i64, i64, i64, !llvm.ptr, f32, !llvm.ptr) -> () loc("op4")')


def test_a_generic_launch_becomes_custom() -> None:
    assert custom_gpu_ops(GENERIC) == (
        '    gpu.launch_func <%5 : !llvm.ptr> @k::@f blocks in (%1, %1, %1) threads in '
        '(%2, %1, %1) : i64 args(%7 : !llvm.ptr, %cst : f32) loc("op4")')
    # What the custom syntax cannot say is left as it is.
    with_cluster = GENERIC.replace("0, 0, 0, 0, 2, 1", "1, 1, 1, 0, 2, 1")
    assert custom_gpu_ops(with_cluster) == with_cluster


@pytest.mark.parametrize("version", [19, 22])
def test_the_lowered_kernel_program_parses_back(version: int) -> None:
    tool = find_mlir_opt(version)
    if tool is None:
        pytest.skip(f"no mlir-opt-{version}")
    text = lower_custom(KERNEL_PROGRAM, "xdsl:split-api")
    assert '"gpu.' not in text and "gpu.module @kernels {" in text
    [launch] = [ln for ln in text.splitlines() if "gpu.launch_func" in ln]
    assert launch.strip().startswith("gpu.launch_func <%") and "args(" in launch
    proc = subprocess.run([tool], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "gpu.launch_func <%" in proc.stdout
