// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-memcpy-sync: `gpu.memcpy` is left unconverted although the lowering succeeds.
// Root cause b92f06473f3 found by gpu-alloc-verify in 14 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 11; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.memcpy` is lowered to runtime calls, not left as gpu.memcpy:
  // CHECK-NOT: gpu.memcpy
  // CHECK: llvm.call @mgpuMemcpy(
  func.func @f0(%cond0: i1) {
    scf.if %cond0 {
    } else {
      %m3 = gpu.alloc host_shared () : memref<1xi32>
      %m5 = gpu.alloc () : memref<1xi32>
      gpu.memcpy %m3, %m5 : memref<1xi32>, memref<1xi32>
    }
    return
  }
}
