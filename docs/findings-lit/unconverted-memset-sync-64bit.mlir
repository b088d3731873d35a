// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memset-sync-64bit: `gpu.memset (64-bit)` is left unconverted although the lowering succeeds.
// Root cause bef15dd6d69 found by gpu-alloc-verify in 80 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset (64-bit)` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset64(
  func.func @f0(%buf0: memref<4xi64>) {
    %cst_i64_1 = arith.constant 1 : i64
    gpu.memset %buf0, %cst_i64_1 : memref<4xi64>, i64
    return
  }
}
