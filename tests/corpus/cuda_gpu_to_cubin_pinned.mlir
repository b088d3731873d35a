// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: async-order holds: the helper's work is put in @main's host order at its call (issue 26).
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/gpu-to-cubin.mlir): un-outlined gpu.launch on pinned memory
// A helper launches an un-outlined kernel on a host-registered buffer;
// main fills it, calls the helper and prints the result.
func.func @other_func(%arg0 : f32, %arg1 : memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %block = memref.dim %arg1, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %block, %sy = %c1, %sz = %c1) {
    memref.store %arg0, %arg1[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

func.func @main() {
  %v0 = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %data = memref.alloc() : memref<5xf32>
  %dyn = memref.cast %data : memref<5xf32> to memref<?xf32>
  %unranked = memref.cast %dyn : memref<?xf32> to memref<*xf32>
  gpu.host_register %unranked : memref<*xf32>
  scf.for %i = %c0 to %c5 step %c1 {
    memref.store %v0, %dyn[%i] : memref<?xf32>
  }
  %v1 = arith.constant 1.0 : f32
  call @other_func(%v1, %dyn) : (f32, memref<?xf32>) -> ()
  call @printMemrefF32(%unranked) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
