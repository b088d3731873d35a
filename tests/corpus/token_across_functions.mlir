// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=violated lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=violated lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=violated lowering-complete=holds
// POINTS mlir-opt-16 stream-no-leak: 17:8
// POINTS mlir-opt-16 runtime-contract: 23:3
// POINTS mlir-opt-19 stream-no-leak: 17:8
// POINTS mlir-opt-19 runtime-contract: 23:3
// POINTS mlir-opt-22 stream-no-leak: 17:8
// POINTS mlir-opt-22 runtime-contract: 23:3
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: In @finish the token is a block argument, not a mgpuStreamCreate result, so gpu.wait
// WHY: lowers to mgpuEventSynchronize/Destroy on the stream created at 17:8 (16, 19, 22).
// A token created in one function and awaited in another: @begin_upload
// returns the in-flight token, @finish waits on it.
func.func @begin_upload(%dev: memref<256xf32>, %host: memref<256xf32>) -> !gpu.async.token {
  %s = gpu.wait async
  %t = gpu.memcpy async [%s] %dev, %host : memref<256xf32>, memref<256xf32>
  return %t : !gpu.async.token
}

func.func @finish(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}

func.func @upload(%dev: memref<256xf32>, %host: memref<256xf32>) {
  %t = call @begin_upload(%dev, %host) : (memref<256xf32>, memref<256xf32>) -> !gpu.async.token
  call @finish(%t) : (!gpu.async.token) -> ()
  return
}
// DIFFERENTIAL mlir-opt-19: violated: in @finish the token is a block argument, so gpu.wait (23:3) synchronizes and destroys the stream created at 17:8 as an event (invalid-handle), as runtime-contract=violated says
// DIFFERENTIAL mlir-opt-22: violated: in @finish the token is a block argument, so gpu.wait (23:3) synchronizes and destroys the stream created at 17:8 as an event (invalid-handle), as runtime-contract=violated says
