// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// differential-live-streams: @f0 with no args, lazy schedule: live streams at exit: source 0, lowered 1.
// Root cause b63c547c14f found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant differential: the lowered program's observable outcome on the reference runtime equals the source semantics'.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // The stream created for `gpu.wait async` is destroyed:
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0() {
    %t1 = gpu.wait async
    %t2 = gpu.wait async [%t1]
    gpu.wait [%t2]
    return
  }
}
