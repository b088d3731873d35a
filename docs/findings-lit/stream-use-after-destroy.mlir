// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// stream-use-after-destroy: stream created by `gpu.wait async` is used by mgpuStreamSynchronize after its destroy (destroy from `gpu.wait [%t]`, use from `gpu.wait [%t]`).

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The stream destroyed at `gpu.wait [%t]` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0() -> f32 {
    %c0 = arith.constant 0 : index
    %cst_f32_2 = arith.constant 2.0 : f32
    %t1 = gpu.wait async
    %m2 = gpu.alloc host_shared () : memref<4xf32>
    %v3 = memref.load %m2[%c0] : memref<4xf32>
    %t4 = gpu.memset async [%t1] %m2, %cst_f32_2 : memref<4xf32>, f32
    gpu.wait [%t4]
    gpu.wait [%t1]
    return %v3 : f32
  }
}
