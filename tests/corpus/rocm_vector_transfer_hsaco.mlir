// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: async-order holds: the helper's work is put in @main's host order at its call (issue 26).
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-rocdl),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM ROCm integration test (mlir/test/Integration/GPU/ROCM/vector-transferops.mlir): vector.transfer in the kernel, two host-registered buffers
func.func @vectransferx2(%arg0 : memref<?xf32>, %arg1 : memref<?xf32>) {
  %cst = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%grid_x = %cst, %grid_y = %cst, %grid_z = %cst)
             threads(%tx, %ty, %tz) in (%block_x = %cst, %block_y = %cst, %block_z = %cst) {
    %f0 = arith.constant 0.0 : f32
    %base = arith.constant 0 : index
    %f = vector.transfer_read %arg0[%base], %f0 {permutation_map = affine_map<(d0) -> (d0)>} : memref<?xf32>, vector<2xf32>
    %c = arith.addf %f, %f : vector<2xf32>
    vector.transfer_write %c, %arg1[%base] {permutation_map = affine_map<(d0) -> (d0)>} : vector<2xf32>, memref<?xf32>
    gpu.terminator
  }
  return
}

func.func @main() {
  %0 = memref.alloc() : memref<4xf32>
  %1 = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cf1 = arith.constant 1.0 : f32
  %cf0 = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %cf1, %0[%i] : memref<4xf32>
    memref.store %cf0, %1[%i] : memref<4xf32>
  }
  %2 = memref.cast %0 : memref<4xf32> to memref<?xf32>
  %3 = memref.cast %1 : memref<4xf32> to memref<?xf32>
  %u0 = memref.cast %0 : memref<4xf32> to memref<*xf32>
  %u1 = memref.cast %1 : memref<4xf32> to memref<*xf32>
  gpu.host_register %u0 : memref<*xf32>
  gpu.host_register %u1 : memref<*xf32>
  call @vectransferx2(%2, %3) : (memref<?xf32>, memref<?xf32>) -> ()
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
