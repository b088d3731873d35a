// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// unconverted-dealloc-async-dep: `gpu.dealloc async [%t]` is left unconverted although the lowering succeeds.
// Root cause be0f7994e62 found by gpu-alloc-verify in 16 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.dealloc async [%t]` is lowered to runtime calls, not left as gpu.dealloc:
  // CHECK-NOT: gpu.dealloc
  // CHECK: llvm.call @mgpuMemFreeAsync(
  func.func @f0() {
    %t1 = gpu.wait async
    %m2 = gpu.alloc () : memref<1x1xi32>
    %t3 = gpu.dealloc async [%t1] %m2 : memref<1x1xi32>
    return
  }
}
