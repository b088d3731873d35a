// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-alloc-async-not-one-dep-host-shared: `gpu.alloc async host_shared` is left unconverted although the lowering succeeds.
// Root cause bc36311856d found by gpu-alloc-verify in 222 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.alloc async host_shared` is lowered to runtime calls, not left as gpu.alloc:
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.call @mgpuMemAllocAsync(
  func.func @f0() {
    %m1, %t2 = gpu.alloc async host_shared () : memref<4xf32>
    return
  }
}
