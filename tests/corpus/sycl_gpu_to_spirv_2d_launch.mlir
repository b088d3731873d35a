// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM SYCL integration test (mlir/test/Integration/GPU/SYCL/gpu-to-spirv.mlir): un-outlined 2-D launch on async device buffers, printMemref of the copy-back
func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 2.0 : f32
  %h = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%f : f32) outs(%h : memref<3x3xf32>)
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<3x3xf32>
  %t2 = gpu.memcpy async [%t1] %d, %h : memref<3x3xf32>, memref<3x3xf32>
  %t3 = gpu.launch async [%t2] blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c3, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %d[%bx, %by] : memref<3x3xf32>
    %sq = arith.mulf %v, %v : f32
    memref.store %sq, %d[%bx, %by] : memref<3x3xf32>
    gpu.terminator
  }
  %t4 = gpu.memcpy async [%t3] %h, %d : memref<3x3xf32>, memref<3x3xf32>
  %t5 = gpu.dealloc async [%t4] %d : memref<3x3xf32>
  gpu.wait [%t5]
  %u = memref.cast %h : memref<3x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %h : memref<3x3xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
