// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=violated event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=violated event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=violated event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-16 stream-no-leak: 18:8
// POINTS mlir-opt-16 stream-no-use-after-destroy: 21:3
// POINTS mlir-opt-19 stream-no-leak: 18:8
// POINTS mlir-opt-19 stream-no-use-after-destroy: 21:3
// POINTS mlir-opt-22 stream-no-leak: 18:8
// POINTS mlir-opt-22 stream-no-use-after-destroy: 21:3
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Both copies run on the stream of %t, so gpu.wait [%t0, %t1] becomes two
// WHY: mgpuStreamSynchronize+mgpuStreamDestroy pairs on the same stream (16, 19, 22).
// One token fans out to two copies; the host waits for both.  Both copies
// run on the stream of %t, and the lowered wait synchronizes and destroys
// that stream once per operand.
func.func @replicate(%replica0: memref<128xf32>, %replica1: memref<128xf32>, %weights: memref<128xf32>) {
  %t = gpu.wait async
  %t0 = gpu.memcpy async [%t] %replica0, %weights : memref<128xf32>, memref<128xf32>
  %t1 = gpu.memcpy async [%t] %replica1, %weights : memref<128xf32>, memref<128xf32>
  gpu.wait [%t0, %t1]
  return
}
// DIFFERENTIAL mlir-opt-19: violated: the lowered code destroys one stream twice (double-destroy), as stream-no-use-after-destroy=violated says; the source destroys each once
// DIFFERENTIAL mlir-opt-22: violated: the lowered code destroys one stream twice (double-destroy), as stream-no-use-after-destroy=violated says; the source destroys each once
