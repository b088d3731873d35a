// RUN: mlir-opt %s --pass-pipeline='builtin.module(convert-scf-to-cf,gpu-to-llvm)' | FileCheck %s

// differential-live-streams: @f0 with no args, schedule 0: lowered outcome differs in live_streams.
// Root cause b19136174fd found by gpu-alloc-verify in 0 program(s) on mlir-opt-19; invariant differential: the lowered program's observable outcome on the reference runtime equals the source semantics'.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // The stream created for `gpu.wait async` is destroyed:
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0() {
    %t1 = gpu.wait async
    %t2 = gpu.wait async
    %t3 = gpu.wait async [%t1]
    gpu.wait [%t2, %t3]
    return
  }
}
