// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 15:17
// POINTS mlir-opt-22 lowering-complete: 15:17
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: The stream of gpu.wait async goes (cast) into the async host_shared alloc 19/22 do not
// WHY: convert, so it leaks unless that op frees it: unknown, not violated. 16 rejects host_shared.
// A stream is created for `gpu.wait async`, but its only consumer (an
// async host_shared allocation) is one gpu-to-llvm does not convert.
func.func @shared_staging(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async
  %stage, %t1 = gpu.alloc async [%t0] host_shared (%n) : memref<?xf32>
  gpu.wait [%t1]
  %v = memref.load %stage[%c0] : memref<?xf32>
  return %v : f32
}
