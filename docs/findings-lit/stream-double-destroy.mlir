// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// stream-double-destroy: the stream created for `gpu.alloc` is destroyed 2 times; `gpu.wait [%t]` is its last use.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  // The stream created for `gpu.alloc` is destroyed once only:
  // CHECK-NOT: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0() {
    %m1 = gpu.alloc () : memref<64x16xi32>
    %t2 = gpu.dealloc async %m1 : memref<64x16xi32>
    %m4 = gpu.alloc () : memref<1xf32>
    gpu.wait [%t2]
    return
  }
}
