// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm)' | FileCheck %s

// event-double-destroy-wait-async-dep: the event destroyed by `gpu.wait async [%t]` (not created here) is destroyed twice (use from `gpu.wait async [%t]`).
// Root cause b3b26469374 found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 16; passes on xdsl:split-api.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale_Dx1xf32(%buf: memref<?x1xf32>, %factor: f32) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuEventDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The event destroyed at `gpu.wait async [%t]` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0(%size0: index, %x0: f32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %m1, %t2 = gpu.alloc async (%size0) : memref<?x1xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@scale_Dx1xf32 blocks in (%c1, %c1, %c1) threads in (%c64, %c4, %c1) args(%m1 : memref<?x1xf32>, %x0 : f32)
    %t4 = gpu.wait async [%t3, %t2]
    return
  }
}
