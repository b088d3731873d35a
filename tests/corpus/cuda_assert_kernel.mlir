// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=violated sync-alloc-no-stream=not-applicable stream-no-leak=not-applicable stream-no-use-after-destroy=not-applicable event-no-leak=not-applicable host-shared-flag=not-applicable async-order=not-applicable runtime-contract=not-applicable lowering-complete=not-applicable
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-19 lowering-no-crash: 17:7
// WHY: 19: convert-gpu-to-nvvm lowers cf.assert to an llvm.mlir.addressof of a global it never emits in the gpu.module:
// WHY: invalid IR (upstream bug, fixed by 22). 22 lowers cleanly; 16 needs a serialized module.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/assert.mlir): cf.assert in a kernel, sync launch, host wait
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @check_positive(%buf: memref<32xi32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %buf[%tx] : memref<32xi32>
      %zero = arith.constant 0 : i32
      %ok = arith.cmpi sgt, %v, %zero : i32
      cf.assert %ok, "value must be positive"
      gpu.return
    }
  }

  func.func @main(%buf: memref<32xi32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@check_positive blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%buf : memref<32xi32>)
    gpu.wait [%t1]
    return
  }
}
