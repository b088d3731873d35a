"""Shapes real GPU host code has (issue 45): kernels launched under the
bare-pointer convention, and the runner utils' printers of every element
type, on both sides of `differential`."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.kernel_api import MemRefView, Param
from gpu_alloc_verify.oracles.llvm_values import Unsupported
from gpu_alloc_verify.oracles.lowered_gpu import kernel_args
from gpu_alloc_verify.oracles.lowered_host import PRINTERS
from gpu_alloc_verify.oracles.lowered_xdsl.host_calls import HOST_CALLS
from gpu_alloc_verify.oracles.source_xdsl.host_ops import HostFunctions

BUF = Param("memref", "memref<4x5xf32>", "f32", 2)
N = Param("scalar", "index", "index")


def test_a_bare_pointer_is_the_static_shape_row_major() -> None:
    got = kernel_args([BUF, N], [0x1000, 7])
    assert got == [MemRefView(0x1000, 0, (4, 5), (5, 1), "f32"), 7]


def test_expanded_descriptor_fields_still_read_as_before() -> None:
    got = kernel_args([BUF], [0x1000, 0x1000, 2, 4, 5, 5, 1])
    assert got == [MemRefView(0x1000, 2, (4, 5), (5, 1), "f32")]


def test_a_bare_pointer_of_dynamic_shape_is_refused_by_name() -> None:
    dyn = Param("memref", "memref<?xf32>", "f32", 1)
    with pytest.raises(Unsupported, match=r"dynamically shaped memref<\?xf32>"):
        kernel_args([dyn, N], [0x1000, 7])


def test_every_printer_runs_on_both_sides() -> None:
    assert {"printMemrefBF16", "printMemrefF16", "printMemrefI8", "printMemrefI16",
            "printMemrefInd"} <= set(PRINTERS)
    source = {name for name, _ in HostFunctions._ext_impls()}
    assert set(PRINTERS) <= source and set(PRINTERS) <= HOST_CALLS


VECTOR_PRINT = """
module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = gpu.alloc host_shared () : memref<4xf32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%d : memref<4xf32>)
    %v = memref.load %d[%c0] : memref<4xf32>
    vector.print %v : f32
    vector.print str "done\\n"
    %u = memref.cast %d : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    gpu.dealloc %d : memref<4xf32>
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
  gpu.module @k {
    gpu.func @fill(%b: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.5 : f32
      memref.store %v, %b[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
"""


@pytest.mark.slow
def test_vector_print_of_a_scalar_and_a_string_holds_differential() -> None:
    from gpu_alloc_verify.verify import api
    from tests.conftest import need_mlir_opt

    need_mlir_opt(22)
    low = api.lowering("mlir-opt-22",
                       "gpu.module(convert-gpu-to-nvvm),convert-vector-to-llvm,gpu-to-llvm")
    r = api.judgement(VECTOR_PRINT, low, ["differential"]).results["differential"]
    assert r.verdict == "holds", r.reason


ASSERTING = """
gpu.module @kernels {
  gpu.func @check(%n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %n, %c0 : i32
    cf.assert %ok, "n must be positive"
    gpu.return
  }
}
"""


class _NoMemory:
    def load(self, ptr: int, nbytes: int) -> bytes | None:
        return bytes(nbytes)

    def store(self, ptr: int, data: bytes) -> None:
        pass


def test_a_device_assertion_runs_and_a_failed_one_has_no_outcome() -> None:
    from gpu_alloc_verify.oracles.kernel_api import KernelUnsupported
    from gpu_alloc_verify.oracles.kernel_interp import load_kernel

    kernel = load_kernel(ASSERTING, "check")
    kernel.run((1, 1, 1), (2, 1, 1), [3], _NoMemory())  # holds: nothing happens
    with pytest.raises(KernelUnsupported, match="failed cf.assert .*n must be positive"):
        kernel.run((1, 1, 1), (2, 1, 1), [0], _NoMemory())
