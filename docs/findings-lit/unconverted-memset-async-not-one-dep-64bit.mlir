// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memset-async-not-one-dep-64bit: `gpu.memset async (64-bit)` is left unconverted although the lowering succeeds.
// Root cause b47440a33e4 found by gpu-alloc-verify in 16 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset async (64-bit)` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset64(
  func.func @f0(%size0: index) -> f64 {
    %c0 = arith.constant 0 : index
    %cst_f64_0 = arith.constant 0.0 : f64
    %m1, %t2 = gpu.alloc async host_shared (%size0) : memref<4x?xf64>
    %v3 = memref.load %m1[%c0, %c0] : memref<4x?xf64>
    %t4 = gpu.memset async %m1, %cst_f64_0 : memref<4x?xf64>, f64
    return %v3 : f64
  }
}
