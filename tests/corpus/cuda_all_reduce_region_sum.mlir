// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: All-reduce with a region, fully lowered; only async-order is open (printMemref after a sync launch).
// WHY: 16 needs a serialized module.
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/all-reduce-region.mlir): all_reduce with a region over a 3-D block
// Each thread contributes its linear id; a region reduction picks the max.
func.func @main() {
  %dst = memref.alloc() : memref<2x4x13xf32>
  %dst_u = memref.cast %dst : memref<2x4x13xf32> to memref<*xf32>
  gpu.host_register %dst_u : memref<*xf32>
  %one = arith.constant 1 : index
  %sx = arith.constant 13 : index
  %sy = arith.constant 4 : index
  %sz = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%grid_x = %one, %grid_y = %one, %grid_z = %one)
             threads(%tx, %ty, %tz) in (%block_x = %sx, %block_y = %sy, %block_z = %sz) {
    %t0 = arith.muli %tz, %block_y : index
    %t1 = arith.addi %ty, %t0 : index
    %t2 = arith.muli %t1, %block_x : index
    %idx = arith.addi %tx, %t2 : index
    %t3 = arith.index_cast %idx : index to i32
    %val = arith.sitofp %t3 : i32 to f32
    %xor = gpu.all_reduce %val uniform {
    ^bb(%lhs : f32, %rhs : f32):
      %gt = arith.cmpf ogt, %lhs, %rhs : f32
      %m = arith.select %gt, %lhs, %rhs : f32
      "gpu.yield"(%m) : (f32) -> ()
    } : (f32) -> (f32)
    memref.store %xor, %dst[%tz, %ty, %tx] : memref<2x4x13xf32>
    gpu.terminator
  }
  call @printMemrefF32(%dst_u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(%ptr : memref<*xf32>)
