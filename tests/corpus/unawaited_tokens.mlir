// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Both streams stay alive, but the source never awaits their tokens: stream-no-leak
// WHY: does not blame the lowering. f32 memset and memcpy lower on 16 too.
// Fire-and-forget work: the tokens are dropped and never awaited, so the
// source itself leaves the streams running.
func.func @prefetch(%dev: memref<4096xi8>, %host: memref<4096xi8>, %stats: memref<16xf32>, %zero: f32) {
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %dev, %host : memref<4096xi8>, memref<4096xi8>
  %u0 = gpu.wait async
  %u1 = gpu.memset async [%u0] %stats, %zero : memref<16xf32>, f32
  return
}
