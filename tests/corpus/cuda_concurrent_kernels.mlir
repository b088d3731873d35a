// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/concurrent-kernels.mlir): two independent streams joined by one host wait
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @spin(%out: memref<?xi32>, %v: i32) kernel {
      %tx = gpu.thread_id x
      memref.store %v, %out[%tx] : memref<?xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %s0 = gpu.wait async
    %b0, %ta = gpu.alloc async [%s0] (%c64) : memref<?xi32>
    %s1 = gpu.wait async
    %b1, %tb = gpu.alloc async [%s1] (%c64) : memref<?xi32>
    %ta2 = gpu.launch_func async [%ta] @kernels::@spin blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%b0 : memref<?xi32>, %one : i32)
    %tb2 = gpu.launch_func async [%tb] @kernels::@spin blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%b1 : memref<?xi32>, %two : i32)
    %ta3 = gpu.dealloc async [%ta2] %b0 : memref<?xi32>
    %tb3 = gpu.dealloc async [%tb2] %b1 : memref<?xi32>
    gpu.wait [%ta3, %tb3]
    return
  }
}
