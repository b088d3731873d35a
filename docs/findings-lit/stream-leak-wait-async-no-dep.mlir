// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-async-no-dep: the stream created for `gpu.alloc` is never destroyed; `gpu.wait async` is its last use.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // The stream created for `gpu.alloc` is destroyed:
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0() {
    %m1 = gpu.alloc () : memref<4xf32>
    %t2 = gpu.wait async
    return
  }
}
