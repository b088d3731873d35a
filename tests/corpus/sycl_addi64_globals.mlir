// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: async-order holds: the helper's work is put in @main's host order at its call (issue 26).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM SYCL integration test (mlir/test/Integration/GPU/SYCL/gpu-addi64-to-spirv.mlir): constant globals uploaded to host_shared buffers with memref.copy
module @add attributes {gpu.container_module} {
  memref.global "private" constant @__lhs : memref<3xi64> = dense<[1, 2, 3]>
  memref.global "private" constant @__rhs : memref<3xi64> = dense<[10, 20, 30]>

  func.func @main() {
    %0 = memref.get_global @__lhs : memref<3xi64>
    %1 = memref.get_global @__rhs : memref<3xi64>
    %2 = call @test(%0, %1) : (memref<3xi64>, memref<3xi64>) -> memref<3xi64>
    %cast = memref.cast %2 : memref<3xi64> to memref<*xi64>
    call @printMemrefI64(%cast) : (memref<*xi64>) -> ()
    return
  }

  func.func private @printMemrefI64(memref<*xi64>)

  func.func @test(%arg0: memref<3xi64>, %arg1: memref<3xi64>) -> memref<3xi64> {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %m0 = gpu.alloc host_shared () : memref<3xi64>
    memref.copy %arg0, %m0 : memref<3xi64> to memref<3xi64>
    %m1 = gpu.alloc host_shared () : memref<3xi64>
    memref.copy %arg1, %m1 : memref<3xi64> to memref<3xi64>
    %m2 = gpu.alloc host_shared () : memref<3xi64>
    gpu.launch_func @kernels::@add blocks in (%c3, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m0 : memref<3xi64>, %m1 : memref<3xi64>, %m2 : memref<3xi64>)
    %t = gpu.wait async
    %t1 = gpu.dealloc async [%t] %m0 : memref<3xi64>
    %t2 = gpu.dealloc async [%t1] %m1 : memref<3xi64>
    gpu.wait [%t2]
    return %m2 : memref<3xi64>
  }

  gpu.module @kernels {
    gpu.func @add(%a: memref<3xi64>, %b: memref<3xi64>, %c: memref<3xi64>) kernel {
      %i = gpu.block_id x
      %x = memref.load %a[%i] : memref<3xi64>
      %y = memref.load %b[%i] : memref<3xi64>
      %s = arith.addi %x, %y : i64
      memref.store %s, %c[%i] : memref<3xi64>
      gpu.return
    }
  }
}
