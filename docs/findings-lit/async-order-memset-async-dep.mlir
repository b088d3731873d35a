// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// async-order-memset-async-dep: host wait `gpu.wait [%t]` awaits gpu.memset `gpu.memset async [%t]` before host read `host read`, yet host.load of `host read` may start before mgpuMemset32 of `gpu.memset async [%t]` ends.
// Root cause b491a296299 found by gpu-alloc-verify in 0 program(s) on mlir-opt-19; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamCreate(
  // `gpu.memset async [%t]` calls @mgpuStreamCreate:
  // CHECK: llvm.call @mgpuStreamCreate(
  func.func @f0(%size0: index) {
    %c0 = arith.constant 0 : index
    %cst_f32_0 = arith.constant 0.0 : f32
    %t1 = gpu.wait async
    %m2 = gpu.alloc host_shared (%size0) : memref<?xf32>
    %t3 = gpu.memset async [%t1] %m2, %cst_f32_0 : memref<?xf32>, f32
    %t4 = gpu.memset async [%t3, %t1] %m2, %cst_f32_0 : memref<?xf32>, f32
    gpu.wait [%t4]
    %v5 = memref.load %m2[%c0] : memref<?xf32>
    return
  }
}
