// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// unconverted-alloc-async-dep-host-shared: `gpu.alloc async [%t] host_shared` is left unconverted although the lowering succeeds.
// Root cause b0b7336386e found by gpu-alloc-verify in 78 program(s) on mlir-opt-19, mlir-opt-22; invariant lowering-complete: a lowering that reports success leaves no gpu.* runtime op and no unresolved cast.
// Verified: fails on mlir-opt-19 at line 10; passes on xdsl:split-api.

module {
  // CHECK-LABEL: llvm.func @f0(
  // `gpu.alloc async [%t] host_shared` is lowered to runtime calls, not left as gpu.alloc:
  // CHECK-NOT: gpu.alloc
  // CHECK: llvm.return
  func.func @f0() {
    %m1, %t2 = gpu.alloc async () : memref<1xi32>
    %m3, %t4 = gpu.alloc async [%t2] host_shared () : memref<64x64xf64>
    return
  }
}
