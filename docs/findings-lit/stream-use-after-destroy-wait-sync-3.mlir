// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-use-after-destroy-wait-sync-3: stream created by `gpu.wait async` is used by mgpuStreamSynchronize after its destroy (destroy from `host read`, use from `gpu.wait [%t]`).
// Root cause bdeb3ca8955 found by gpu-alloc-verify in 7 program(s) on mlir-opt-16, mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-16 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The stream destroyed at `host read` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0() {
    %c0 = arith.constant 0 : index
    %h1 = memref.alloc() : memref<16xi16>
    %t2 = gpu.wait async
    %v3 = memref.load %h1[%c0] : memref<16xi16>
    %t4 = gpu.wait async
    gpu.wait [%t2, %t4]
    return
  }
}
