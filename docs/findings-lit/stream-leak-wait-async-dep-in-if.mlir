// RUN: mlir-opt %s --pass-pipeline='builtin.module(gpu-to-llvm)' | FileCheck %s

// stream-leak-wait-async-dep-in-if: the stream created for `gpu.wait async` is not destroyed when %cond0=true; `gpu.wait async [%t]` is its last use.
// Root cause b6b70384d42 found by gpu-alloc-verify in 8 program(s) on mlir-opt-19, mlir-opt-22; invariant stream-no-leak: every stream created is destroyed exactly once on every path (unless the source leaves that token un-awaited).
// Verified: fails on mlir-opt-19 at line 16; passes on xdsl:split-api.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy_4xi64(%src: memref<4xi64>, %dst: memref<4xi64>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: llvm.func @f0(
  // CHECK: %[[H:[0-9a-zA-Z_]+]] = llvm.call @mgpuStreamCreate()
  // The stream created for `gpu.wait async` is destroyed:
  // CHECK: llvm.call @mgpuStreamDestroy(%[[H]])
  func.func @f0(%cond0: i1, %size0: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.if %cond0 {
      %t2 = gpu.wait async
      %m3, %t4 = gpu.alloc async host_shared () : memref<4xi64>
      %m5, %t6 = gpu.alloc async [%t2] () : memref<4xi64>
      %t7 = gpu.wait async [%t4, %t6]
      %t8 = gpu.launch_func async [%t7] @kernels::@copy_4xi64 blocks in (%size0, %c1, %c1) threads in (%c64, %c1, %c1) args(%m3 : memref<4xi64>, %m5 : memref<4xi64>)
      gpu.wait [%t8]
    }
    return
  }
}
