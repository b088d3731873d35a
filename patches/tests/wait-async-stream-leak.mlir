// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @wait_async_on_stream_used_once
func.func @wait_async_on_stream_used_once() {
  // CHECK: %[[s0:.*]] = llvm.call @mgpuStreamCreate()
  %t0 = gpu.wait async
  // CHECK: %[[event:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[event]], %[[s0]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[s0]])
  // CHECK: %[[s1:.*]] = llvm.call @mgpuStreamCreate()
  %t1 = gpu.wait async [%t0]
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[s1]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[s1]])
  gpu.wait [%t1]
  return
}
