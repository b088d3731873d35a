// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memset-sync: `gpu.memset` is left unconverted although the lowering succeeds.
// Root cause b239e555f7a found by gpu-alloc-verify in 180 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset32(
  func.func @f0() {
    %cst_f32_0 = arith.constant 0.0 : f32
    %m1 = gpu.alloc () : memref<4xf32>
    gpu.memset %m1, %cst_f32_0 : memref<4xf32>, f32
    return
  }
}
