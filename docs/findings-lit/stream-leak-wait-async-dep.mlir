// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-async-dep: the stream created for `gpu.wait async` is never destroyed; `gpu.wait async [%t]` is its last use.
// Root cause b501c4b674e found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-leak: every stream created is destroyed exactly once on every path (unless the source leaves that token un-awaited).
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
