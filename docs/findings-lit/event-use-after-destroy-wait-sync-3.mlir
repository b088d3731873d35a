// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// event-use-after-destroy-wait-sync-3: the event destroyed by an op (not created here) is used by mgpuEventSynchronize after its destroy (use from `gpu.wait [%t]`).
// Root cause bcb574865cf found by gpu-alloc-verify in 2 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuEventDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The event destroyed at `?` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0(%size0: index, %size1: index, %cond0: i1) {
    %c0 = arith.constant 0 : index
    %m2, %t3 = gpu.alloc async host_shared (%size0) : memref<16x?xf64>
    %m4 = gpu.alloc host_shared () : memref<1xf32>
    %m5, %t6 = gpu.alloc async [%t3] (%size1) : memref<?x1xf16>
    scf.if %cond0 {
      %v7 = memref.load %m4[%c0] : memref<1xf32>
    }
    gpu.wait [%t6]
    return
  }
}
