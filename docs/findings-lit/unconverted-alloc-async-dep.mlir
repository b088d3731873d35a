// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// unconverted-alloc-async-dep: `gpu.alloc async [%t]` is left unconverted although the lowering succeeds.
// Root cause bf4733b4571 found by gpu-alloc-verify in 8 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 10; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.alloc async [%t]` is lowered to runtime calls, not left as gpu.alloc:
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.return
  func.func @f0(%size0: index, %size1: index) {
    %m2, %t3 = gpu.alloc async host_shared (%size0) : memref<16x?xf64>
    %m4 = gpu.alloc host_shared () : memref<1xf32>
    %m5, %t6 = gpu.alloc async [%t3] (%size1) : memref<?x1xf16>
    return
  }
}
