// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-sync-in-if: the stream created for `gpu.wait async` is destroyed 2 times; `gpu.wait [%t]` is its last use.
// Root cause b68cd37bc2f found by gpu-alloc-verify in 19 program(s) on mlir-opt-16, mlir-opt-19, mlir-opt-22; invariant stream-no-leak: every stream created is destroyed exactly once on every path (unless the source leaves that token un-awaited).
// Verified: fails on mlir-opt-16 at line 13; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamCreate(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  // The stream created for `gpu.wait async` is destroyed once only:
  // CHECK-NOT: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0(%cond0: i1, %size0: index) {
    scf.if %cond0 {
      %m1, %t2 = gpu.alloc async () : memref<64x64xi64>
      %t3 = gpu.wait async
      %m4 = gpu.alloc (%size0) : memref<?xf32>
      gpu.wait [%t2, %t3]
    }
    return
  }
}
