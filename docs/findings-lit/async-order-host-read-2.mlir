// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)' | FileCheck %s

// async-order-host-read-2: `%t2 = gpu.launch_func async @kernels::@fill_4x4xf32 ...` must finish before `%v5 = memref.load %m3[%c0]` starts (`gpu.wait [%t4]` awaits it), yet the lowered code may start the second first.
// Root cause bbd0568c74b found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 16; passes on xdsl:split-api.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill_4x4xf32(%out: memref<4x4xf32>, %value: f32) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: gpu.launch_func <%[[S:[0-9a-zA-Z_]+]] : !llvm.ptr> @kernels::@fill_4x4xf32
  // `%t2 = gpu.launch_func async @kernels::@fill_4x4xf32 ...` is ordered before `%v5 = memref.load %m3[%c0]`: its stream synchronized, or an event of it awaited
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK: llvm.load
  func.func @f0(%buf0: memref<4x4xf32>, %size0: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cst_f32_0 = arith.constant 0.0 : f32
    %t2 = gpu.launch_func async @kernels::@fill_4x4xf32 blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%buf0 : memref<4x4xf32>, %cst_f32_0 : f32)
    %m3, %t4 = gpu.alloc async [%t2] host_shared (%size0) : memref<?xf32>
    gpu.wait [%t4]
    %v5 = memref.load %m3[%c0] : memref<?xf32>
    return
  }
}
