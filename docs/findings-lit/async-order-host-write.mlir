// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)' | FileCheck %s

// async-order-host-write: `%t3 = gpu.launch_func async @kernels::@scale_1x64xf64 ...` must finish before `memref.store %cst_f32_1, %m4[%c0]` starts (`gpu.wait [%t5]` awaits it), yet the lowered code may start the second first.
// Root cause b339361e706 found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 16; passes on xdsl:split-api.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale_1x64xf64(%buf: memref<1x64xf64>, %factor: f64) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: gpu.launch_func <%[[S:[0-9a-zA-Z_]+]] : !llvm.ptr> @kernels::@scale_1x64xf64
  // `%t3 = gpu.launch_func async @kernels::@scale_1x64xf64 ...` is ordered before `memref.store %cst_f32_1, %m4[%c0]`: its stream synchronized, or an event of it awaited
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK: llvm.store
  func.func @f0(%buf0: memref<1x64xf64>, %size0: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %cst_f32_1 = arith.constant 1.0 : f32
    %cst_f64_2 = arith.constant 2.0 : f64
    %t3 = gpu.launch_func async @kernels::@scale_1x64xf64 blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%buf0 : memref<1x64xf64>, %cst_f64_2 : f64)
    %m4, %t5 = gpu.alloc async [%t3] host_shared (%size0) : memref<?xf32>
    gpu.wait [%t5]
    memref.store %cst_f32_1, %m4[%c0] : memref<?xf32>
    return
  }
}
