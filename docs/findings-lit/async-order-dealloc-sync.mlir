// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// async-order-dealloc-sync: `gpu.dealloc %m1` must finish before `gpu.dealloc %m2` starts (the first is synchronous), yet the lowered code may start the second first.
// Root cause b03ce96d793 found by gpu-alloc-verify in 2 program(s) on mlir-opt-19, mlir-opt-22; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @{{mgpuMemFree(Async)?}}({{[^,)]*}}, %[[S:[0-9a-zA-Z_]+]])
  // `gpu.dealloc %m1` is ordered before `gpu.dealloc %m2`: its stream synchronized, or an event of it awaited
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK: llvm.call @{{mgpuMemFree(Async)?}}({{[^,)]*}}, {{[^,)]*}})
  func.func @f0(%size0: index) {
    %m1 = gpu.alloc () : memref<4xf32>
    gpu.dealloc %m1 : memref<4xf32>
    %m2, %t3 = gpu.alloc async host_shared (%size0) : memref<?xf32>
    gpu.wait [%t3]
    gpu.dealloc %m2 : memref<?xf32>
    return
  }
}
