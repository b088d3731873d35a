// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @stream_destroyed_while_aliased(
func.func @stream_destroyed_while_aliased() {
  %t1 = gpu.wait async
  %t2 = gpu.wait async
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // CHECK-NOT: %[[H]]{{[,)]}}
  gpu.wait [%t1]
  gpu.wait [%t2]
  return
}
