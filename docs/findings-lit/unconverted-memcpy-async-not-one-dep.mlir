// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memcpy-async-not-one-dep: `gpu.memcpy async [%t, %t]` is left unconverted although the lowering succeeds.
// Root cause bab47b4e18b found by gpu-alloc-verify in 20 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memcpy async [%t, %t]` is lowered to runtime calls, not left as gpu.memcpy:
  // CHECK-NOT: gpu.memcpy
  // CHECK: llvm.call @mgpuMemcpy(
  func.func @f0(%size0: index, %size1: index) {
    %m1, %t2 = gpu.alloc async host_shared (%size0, %size1) : memref<?x?xi64>
    %m3 = gpu.alloc host_shared () : memref<1x1xi64>
    %m4, %t5 = gpu.alloc async () : memref<1x1xi64>
    %t6 = gpu.memcpy async [%t5, %t2] %m4, %m3 : memref<1x1xi64>, memref<1x1xi64>
    return
  }
}
