// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-async-no-dep-in-if: the stream created for `gpu.memset` is not destroyed when %cond0=true; `gpu.wait async` is its last use.
// Root cause b2c3c39851a found by gpu-alloc-verify in 3 program(s) on mlir-opt-16, mlir-opt-19, mlir-opt-22; invariant stream-no-leak: every stream created is destroyed exactly once on every path (unless the source leaves that token un-awaited).
// Verified: fails on mlir-opt-16 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // The stream created for `gpu.memset` is destroyed:
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0(%cond0: i1, %buf0: memref<1x64xi32>) {
    %cst_i32_0 = arith.constant 0 : i32
    scf.if %cond0 {
      gpu.memset %buf0, %cst_i32_0 : memref<1x64xi32>, i32
      %t3 = gpu.wait async
    }
    return
  }
}
