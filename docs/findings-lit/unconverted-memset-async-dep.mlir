// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// unconverted-memset-async-dep: `gpu.memset async [%t]` is left unconverted although the lowering succeeds.
// Root cause bf0ea77d65d found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memset async [%t]` is lowered to runtime calls, not left as gpu.memset:
  // CHECK-NOT: gpu.memset
  // CHECK: llvm.call @mgpuMemset32(
  func.func @f0() {
    %cst_f32_0 = arith.constant 0.0 : f32
    %t1 = gpu.wait async
    %m3 = gpu.alloc host_shared () : memref<1xf32>
    %t4 = gpu.memset async [%t1] %m3, %cst_f32_0 : memref<1xf32>, f32
    return
  }
}
