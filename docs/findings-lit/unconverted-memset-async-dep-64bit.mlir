// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memset-async-dep-64bit: `gpu.memset async [%t] (64-bit)` is left unconverted although the lowering succeeds.
// Root cause bee59ee9de2 found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset async [%t] (64-bit)` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset64(
  func.func @f0() {
    %cst_i64_4 = arith.constant 4 : i64
    %m1, %t2 = gpu.alloc async () : memref<1x1xi64>
    %t3 = gpu.memset async [%t2] %m1, %cst_i64_4 : memref<1x1xi64>, i64
    return
  }
}
