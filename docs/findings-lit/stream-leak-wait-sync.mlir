// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-sync: the stream created for `gpu.wait async` is destroyed 2 times; `gpu.wait [%t]` is its last use.
// Root cause ba5dffe599f found by gpu-alloc-verify in 39 program(s) on mlir-opt-16, mlir-opt-19, mlir-opt-22; invariant stream-no-leak: every stream created is destroyed exactly once on every path (unless the source leaves that token un-awaited).
// Verified: fails on mlir-opt-16 at line 12; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  // The stream created for `gpu.wait async` is destroyed once only:
  // CHECK-NOT: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0() {
    %t1 = gpu.wait async
    %m2 = gpu.alloc () : memref<4xf32>
    gpu.wait [%t1]
    return
  }
}
