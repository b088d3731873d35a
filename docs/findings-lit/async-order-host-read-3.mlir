// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// async-order-host-read-3: `gpu.memcpy %m2, %h7` must finish before `%v9 = memref.load %h7[%c0, %c0]` starts (the first is synchronous), yet the lowered code may start the second first.
// Root cause b5f208dea84 found by gpu-alloc-verify in 1 program(s) on mlir-opt-19; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @{{mgpuMemcpy(Async)?}}({{[^,)]*}}, {{[^,)]*}}, {{[^,)]*}}, %[[S:[0-9a-zA-Z_]+]])
  // `gpu.memcpy %m2, %h7` is ordered before `%v9 = memref.load %h7[%c0, %c0]`: its stream synchronized, or an event of it awaited
  // CHECK: llvm.call @mgpuEventRecord(%[[H1:[0-9a-zA-Z_]+]], %[[S]])
  // CHECK: llvm.call @mgpuStreamWaitEvent(%[[H2:[0-9a-zA-Z_]+]], %[[H1]])
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[H2]])
  // CHECK: llvm.load
  func.func @f0(%size0: index) {
    %c0 = arith.constant 0 : index
    %t1 = gpu.wait async
    %m2 = gpu.alloc () : memref<64x1xf32>
    %m5, %t6 = gpu.alloc async (%size0) : memref<?xi32>
    %h7 = memref.alloc() : memref<64x1xf32>
    gpu.memcpy %m2, %h7 : memref<64x1xf32>, memref<64x1xf32>
    %t8 = gpu.dealloc async [%t6, %t1] %m5 : memref<?xi32>
    %v9 = memref.load %h7[%c0, %c0] : memref<64x1xf32>
    return
  }
}
