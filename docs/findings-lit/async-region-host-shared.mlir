// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// async-region-host-shared: `gpu.alloc host_shared` is left unconverted although the lowering succeeds.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.alloc host_shared` is lowered to runtime calls, not left as gpu.alloc:
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.return
  func.func @f0() {
    %m1 = gpu.alloc host_shared () : memref<4xf32, 1>
    return
  }
}
