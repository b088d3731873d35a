// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// async-region-host-shared: `gpu.alloc host_shared` is left unconverted although the lowering succeeds.
// Root cause b6f356a48ba found by gpu-alloc-verify in 32 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 10; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.alloc host_shared` is lowered to runtime calls, not left as gpu.alloc:
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.return
  func.func @f0() {
    %m1 = gpu.alloc host_shared () : memref<4xf32>
    return
  }
}
