// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memset-async-not-one-dep: `gpu.memset async` is left unconverted although the lowering succeeds.
// Root cause b5f4e191b6b found by gpu-alloc-verify in 48 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset async` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset32(
  func.func @f0(%size0: index) {
    %cst_i32_0 = arith.constant 0 : i32
    %m1 = gpu.alloc host_shared (%size0) : memref<?xi32>
    %t2 = gpu.memset async %m1, %cst_i32_0 : memref<?xi32>, i32
    return
  }
}
