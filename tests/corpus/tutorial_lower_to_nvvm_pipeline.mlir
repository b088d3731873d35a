// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// WHY: 16 has no gpu-lower-to-nvvm-pipeline (not-applicable); 19/22 run it up to gpu-module-to-binary, which
// WHY: needs ptxas, not installed here: rejected. Nothing checked.
// PIPELINE: gpu-lower-to-nvvm-pipeline
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: MLIR GPU dialect docs ("GPU Compilation" section, gpu-lower-to-nvvm-pipeline): the one-pass pipeline users copy from the docs, on an un-outlined launch
func.func @fill(%buf: memref<64xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t0 = gpu.wait async
  %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    memref.store %v, %buf[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.wait [%t1]
  return
}
