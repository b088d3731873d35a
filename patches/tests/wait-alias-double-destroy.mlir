// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @wait_on_two_tokens_of_one_stream
func.func @wait_on_two_tokens_of_one_stream(%dst : memref<?xf32>, %value : f32) {
  // CHECK: %[[stream:.*]] = llvm.call @mgpuStreamCreate()
  %t0 = gpu.wait async
  // CHECK: llvm.call @mgpuMemset32(%{{.*}}, %{{.*}}, %{{.*}}, %[[stream]])
  %t1 = gpu.memset async [%t0] %dst, %value : memref<?xf32>, f32
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[stream]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[stream]])
  // CHECK-NOT: llvm.call @mgpuStreamDestroy
  // CHECK: llvm.return
  gpu.wait [%t1, %t0]
  return
}
