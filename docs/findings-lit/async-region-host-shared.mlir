// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @async_region_host_shared(
func.func @async_region_host_shared() {
  // CHECK-NOT: gpu.alloc
  %m4 = gpu.alloc host_shared () : memref<4xf32>
  // CHECK: llvm.return
  return
}
