// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm)' | FileCheck %s

// event-use-after-destroy-wait-async-dep: the event destroyed by `gpu.wait async` (not created here) is used by mgpuStreamWaitEvent after its destroy (use from `gpu.wait async [%t]`).
// Root cause b40af318d90 found by gpu-alloc-verify in 2 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(
  // `gpu.wait async` calls @mgpuStreamDestroy:
  // CHECK: llvm.call @mgpuStreamDestroy(
  func.func @f0() {
    %m1, %t2 = gpu.alloc async host_shared () : memref<1x1xi64>
    %t3 = gpu.wait async
    %t4 = gpu.wait async [%t2]
    return
  }
}
