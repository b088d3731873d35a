// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=violated lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=violated lowering-complete=holds
// POINTS mlir-opt-19 stream-no-leak: 17:10
// POINTS mlir-opt-19 runtime-contract: 26:3
// POINTS mlir-opt-22 stream-no-leak: 17:10
// POINTS mlir-opt-22 runtime-contract: 26:3
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: 16 records an event at the async.yield, destroys the region's stream and yields the event.
// WHY: 19/22 yield the stream itself; gpu.wait [%gt] calls mgpuEventSynchronize/Destroy on it.
// What func.func(gpu-async-region) makes of GPU work inside async.execute:
// the region starts its own token chain and yields it as an !async.value,
// which the caller awaits and then waits on.
func.func @overlap(%dst: memref<1024xf32>, %src: memref<1024xf32>, %scratch: memref<1024xf32>, %zero: f32) {
  %token, %result = async.execute -> !async.value<!gpu.async.token> {
    %s = gpu.wait async
    %t1 = gpu.memcpy async [%s] %dst, %src : memref<1024xf32>, memref<1024xf32>
    async.yield %t1 : !gpu.async.token
  }
  %t0 = gpu.wait async
  %t2 = gpu.memset async [%t0] %scratch, %zero : memref<1024xf32>, f32
  gpu.wait [%t2]
  async.await %token : !async.token
  %gt = async.await %result : !async.value<!gpu.async.token>
  gpu.wait [%gt]
  return
}
