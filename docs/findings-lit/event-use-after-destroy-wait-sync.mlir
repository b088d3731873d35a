// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// event-use-after-destroy-wait-sync: the event destroyed by `gpu.wait async [%t]` (not created here) is used by mgpuEventSynchronize after its destroy (use from `gpu.wait [%t]`).
// Root cause b3958da0544 found by gpu-alloc-verify in 12 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 12; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamSynchronize(
  // CHECK: llvm.call @mgpuStreamSynchronize(
  // `gpu.wait [%t]` calls @mgpuStreamSynchronize:
  // CHECK: llvm.call @mgpuStreamSynchronize(
  func.func @f0() {
    %t1 = gpu.wait async
    %t2 = gpu.wait async
    %m3 = gpu.alloc () : memref<4xf32>
    %t4 = gpu.dealloc async %m3 : memref<4xf32>
    %t5 = gpu.wait async [%t1, %t4]
    gpu.wait [%t1, %t2, %t4]
    return
  }
}
