// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-dealloc-sync: `gpu.dealloc` is left unconverted although the lowering succeeds.
// Root cause b6dffa676db found by gpu-alloc-verify in 92 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.dealloc` is lowered to runtime calls, not left as gpu.dealloc:
  // CHECK-NOT: gpu.dealloc
  // CHECK: llvm.call @mgpuMemFree(
  func.func @f0(%size0: index) {
    %m1 = gpu.alloc (%size0) : memref<?x4xf16>
    gpu.dealloc %m1 : memref<?x4xf16>
    return
  }
}
