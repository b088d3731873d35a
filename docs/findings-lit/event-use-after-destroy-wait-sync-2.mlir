// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// event-use-after-destroy-wait-sync-2: the event destroyed by `gpu.wait [%t]` (not created here) is used by mgpuEventSynchronize after its destroy (use from `gpu.wait [%t]`), when %arg0=true.
// Root cause bc73a85d852 found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 16; passes on xdsl:split-api.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_4xi32(%a: memref<4xi32>, %b: memref<4xi32>, %out: memref<4xi32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuEventDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The event destroyed at `gpu.wait [%t]` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0(%cond0: i1) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %m1, %t2 = gpu.alloc async host_shared () : memref<4xi32>
    scf.if %cond0 {
      %m3, %t4 = gpu.alloc async () : memref<4xi32>
      %m5 = gpu.alloc host_shared () : memref<4xi32>
      %t6 = gpu.launch_func async [%t4] @kernels::@add_4xi32 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%m1 : memref<4xi32>, %m3 : memref<4xi32>, %m5 : memref<4xi32>)
      %t7 = gpu.dealloc async [%t6] %m5 : memref<4xi32>
      gpu.wait [%t6]
      gpu.wait [%t7]
    }
    return
  }
}
