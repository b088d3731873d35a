// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// differential-errors: @f0 with no args, lazy schedule: runtime error: source (none), lowered double-destroy at `gpu.wait [%t]`.
// Root cause bd0dd828bba found by gpu-alloc-verify in 58 program(s) on mlir-opt-19, mlir-opt-22; invariant differential: the lowered program's observable outcome on the reference runtime equals the source semantics'.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The stream destroyed at `gpu.wait [%t]` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0() {
    %t1 = gpu.wait async
    %m2 = gpu.alloc () : memref<4xf32>
    gpu.wait [%t1]
    return
  }
}
