// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-dealloc-async-not-one-dep: `gpu.dealloc async` is left unconverted although the lowering succeeds.
// Root cause b803db69327 found by gpu-alloc-verify in 52 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.dealloc async` is lowered to runtime calls, not left as gpu.dealloc:
  // CHECK-NOT: gpu.dealloc
  // CHECK: llvm.call @mgpuMemFreeAsync(
  func.func @f0() {
    %m1 = gpu.alloc host_shared () : memref<16x64xf16>
    %t3 = gpu.dealloc async %m1 : memref<16x64xf16>
    return
  }
}
