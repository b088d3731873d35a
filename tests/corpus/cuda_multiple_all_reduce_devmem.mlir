// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/multiple-all-reduce.mlir): device buffers, sync copies, two reductions
// Sum and product of 2 rows of 6 values on the device: host init loop,
// sync gpu.alloc, copies in and out, one kernel with two all_reduces.
func.func @main() {
  %data = memref.alloc() : memref<2x6xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %cst = arith.constant 1.5 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      memref.store %cst, %data[%i, %j] : memref<2x6xf32>
    }
  }
  %sum = memref.alloc() : memref<2xf32>
  %mul = memref.alloc() : memref<2xf32>
  %t0 = gpu.wait async
  %d_data, %t1 = gpu.alloc async [%t0] () : memref<2x6xf32>
  %t2 = gpu.memcpy async [%t1] %d_data, %data : memref<2x6xf32>, memref<2x6xf32>
  %d_sum, %t3 = gpu.alloc async [%t2] () : memref<2xf32>
  %d_mul, %t4 = gpu.alloc async [%t3] () : memref<2xf32>
  gpu.wait [%t4]

  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%bsx = %c6, %bsy = %c1, %bsz = %c1) {
    %val = memref.load %d_data[%bx, %tx] : memref<2x6xf32>
    %s = gpu.all_reduce add %val uniform {} : (f32) -> (f32)
    memref.store %s, %d_sum[%bx] : memref<2xf32>
    %p = gpu.all_reduce mul %val uniform {} : (f32) -> (f32)
    memref.store %p, %d_mul[%bx] : memref<2xf32>
    gpu.terminator
  }

  %t5 = gpu.wait async
  %t6 = gpu.memcpy async [%t5] %sum, %d_sum : memref<2xf32>, memref<2xf32>
  %t7 = gpu.memcpy async [%t6] %mul, %d_mul : memref<2xf32>, memref<2xf32>
  %t8 = gpu.dealloc async [%t7] %d_data : memref<2x6xf32>
  %t9 = gpu.dealloc async [%t8] %d_sum : memref<2xf32>
  %t10 = gpu.dealloc async [%t9] %d_mul : memref<2xf32>
  gpu.wait [%t10]

  %su = memref.cast %sum : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %mu = memref.cast %mul : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%mu) : (memref<*xf32>) -> ()
  memref.dealloc %data : memref<2x6xf32>
  memref.dealloc %sum : memref<2xf32>
  memref.dealloc %mul : memref<2xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
