// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// stream-use-after-destroy-wait-sync: stream created by `gpu.wait async` is used by mgpuStreamSynchronize after its destroy (destroy from `gpu.wait [%t]`, use from `gpu.wait [%t]`), when %arg0=false.
// Root cause b58297acdff found by gpu-alloc-verify in 22 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-use-after-destroy: no stream or event reaches a runtime call after its destroy; no double destroy.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H:[0-9a-zA-Z_]+]])
  // The stream destroyed at `gpu.wait [%t]` is not used again:
  // CHECK-NOT: %[[H]]{{[,)]}}
  func.func @f0(%cond0: i1) {
    %t1 = gpu.wait async
    %m2 = gpu.alloc () : memref<4xf32>
    scf.if %cond0 {
    } else {
      %t3 = gpu.dealloc async [%t1] %m2 : memref<4xf32>
      gpu.wait [%t3]
    }
    gpu.wait [%t1]
    return
  }
}
