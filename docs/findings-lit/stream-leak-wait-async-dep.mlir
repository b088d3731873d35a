// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-async-dep: the stream created for `gpu.wait async` is never destroyed; `gpu.wait async [%t]` is its last use.

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
