// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// async-order-host-read: `gpu.memset %m1, %cst_f16_5` must finish before `%v6 = memref.load %h3[%c0]` starts (the first is synchronous), yet the lowered code may start the second first.
// Root cause b639f8e39d5 found by gpu-alloc-verify in 4 program(s) on mlir-opt-19, mlir-opt-22; invariant async-order: every happens-before edge of the source holds in every schedule.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @{{mgpuMemset16(Async)?}}({{[^,)]*}}, {{[^,)]*}}, {{[^,)]*}}, %[[S:[0-9a-zA-Z_]+]])
  // `gpu.memset %m1, %cst_f16_5` is ordered before `%v6 = memref.load %h3[%c0]`: its stream synchronized, or an event of it awaited
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK: llvm.load
  func.func @f0() -> i64 {
    %c0 = arith.constant 0 : index
    %cst_f16_5 = arith.constant 5.0 : f16
    %m1, %t2 = gpu.alloc async () : memref<16xf16>
    %h3 = memref.alloc() : memref<64xi64>
    %t4 = gpu.wait async
    gpu.memset %m1, %cst_f16_5 : memref<16xf16>, f16
    %m5 = gpu.alloc host_shared () : memref<16x1xi64>
    %v6 = memref.load %h3[%c0] : memref<64xi64>
    return %v6 : i64
  }
}
