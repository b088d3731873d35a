// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=unknown event-no-leak=unknown host-shared-flag=not-applicable runtime-contract=violated lowering-complete=violated
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=unknown event-no-leak=unknown host-shared-flag=not-applicable runtime-contract=violated lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=unknown event-no-leak=unknown host-shared-flag=not-applicable runtime-contract=violated lowering-complete=violated
// POINTS mlir-opt-16 stream-no-leak: 22:12
// POINTS mlir-opt-16 runtime-contract: 27:3
// POINTS mlir-opt-16 lowering-complete: 22:12 23:11
// POINTS mlir-opt-19 stream-no-leak: 22:12
// POINTS mlir-opt-19 runtime-contract: 27:3
// POINTS mlir-opt-19 lowering-complete: 22:12 23:11
// POINTS mlir-opt-22 stream-no-leak: 22:12
// POINTS mlir-opt-22 runtime-contract: 27:3
// POINTS mlir-opt-22 lowering-complete: 22:12 23:11
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu-to-llvm does not convert the scf.for carrying !gpu.async.token: the stream goes through
// WHY: casts and iter_args to mgpuEventSynchronize/Destroy (27:3), never mgpuStreamDestroy. n>4 is a cut.
// A token threaded through a loop: n copies chained on one stream, the
// host waits once at the end.
func.func @repeat_copy(%n: index, %dst: memref<64xi32>, %src: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %start = gpu.wait async
  %done = scf.for %i = %c0 to %n step %c1 iter_args(%tok = %start) -> (!gpu.async.token) {
    %next = gpu.memcpy async [%tok] %dst, %src : memref<64xi32>, memref<64xi32>
    scf.yield %next : !gpu.async.token
  }
  gpu.wait [%done]
  return
}
// DIFFERENTIAL mlir-opt-19: violated: a token through scf.for is a stream the final gpu.wait destroys as an event (invalid-handle), as runtime-contract=violated says
// DIFFERENTIAL mlir-opt-22: violated: a token through scf.for is a stream the final gpu.wait destroys as an event (invalid-handle), as runtime-contract=violated says
