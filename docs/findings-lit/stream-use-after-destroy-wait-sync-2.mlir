// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-use-after-destroy-wait-sync-2: stream created by `gpu.wait async` is used by mgpuStreamSynchronize after its destroy (destroy from an op, use from `gpu.wait [%t]`).
// Root cause bda69096af9 found by gpu-alloc-verify in 33 program(s) on mlir-opt-16, mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The stream destroyed at `?` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0(%cond0: i1) {
    %m1 = gpu.alloc host_shared () : memref<1x4xi64>
    %t2 = gpu.wait async
    scf.if %cond0 {
    } else {
      %t4 = gpu.dealloc async [%t2] %m1 : memref<1x4xi64>
    }
    gpu.wait [%t2]
    return
  }
}
