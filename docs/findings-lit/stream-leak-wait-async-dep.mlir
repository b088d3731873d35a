// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @stream_leak_wait_async_dep(
func.func @stream_leak_wait_async_dep() {
  %cst_f32_0 = arith.constant 0.0 : f32
  %m2, %t3 = gpu.alloc async () : memref<4xf32>
  gpu.wait [%t3]
  // CHECK: llvm.call @mgpuStreamCreate(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  gpu.memset %m2, %cst_f32_0 : memref<4xf32>, f32
  %t4 = gpu.wait async
  return
}
