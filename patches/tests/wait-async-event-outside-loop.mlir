// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @wait_async_in_loop_on_token_from_before_loop
func.func @wait_async_in_loop_on_token_from_before_loop(%lb : index, %ub : index, %step : index) {
  // CHECK: %[[s0:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NOT: llvm.call @mgpuEventCreate
  // CHECK: scf.for
  %t0 = gpu.wait async
  scf.for %i = %lb to %ub step %step {
    // CHECK: %[[event:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[event]], %[[s0]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[event]])
    %t1 = gpu.wait async [%t0]
    gpu.wait [%t1]
  }
  gpu.wait [%t0]
  return
}
