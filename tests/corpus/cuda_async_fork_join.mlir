// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=violated runtime-contract=violated lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=violated runtime-contract=violated lowering-complete=holds
// POINTS mlir-opt-19 stream-no-leak: 29:11
// POINTS mlir-opt-19 async-order: 30:5
// POINTS mlir-opt-19 runtime-contract: 34:11
// POINTS mlir-opt-22 stream-no-leak: 29:11
// POINTS mlir-opt-22 async-order: 30:5
// POINTS mlir-opt-22 runtime-contract: 34:11
// WHY: gpu-async-region threads tokens through async.execute values; 19/22 treat the awaited token (a stream) as an event:
// WHY: mgpuStreamWaitEvent/EventSynchronize on streams, streams never destroyed, copies unordered (upstream defect). 16: kernel not serialized.
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),func.func(gpu-async-region),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/async.mlir): fork/join of async.execute regions
// Stage a pinned host buffer through three device buffers in async.execute
// regions (one copy forks into two, a kernel joins them), then print it.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %seed = arith.constant 7 : i32
  %h = memref.alloc(%c4) : memref<?xi32>
  %hu = memref.cast %h : memref<?xi32> to memref<*xi32>
  gpu.host_register %hu : memref<*xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %seed, %h[%i] : memref<?xi32>
  }
  %a0, %v0 = async.execute () -> !async.value<memref<?xi32>> {
    %d0 = gpu.alloc(%c4) : memref<?xi32>
    gpu.memcpy %d0, %h : memref<?xi32>, memref<?xi32>
    async.yield %d0 : memref<?xi32>
  }
  %a1, %v1 = async.execute [%a0] (%v0 as %d0 : !async.value<memref<?xi32>>) -> !async.value<memref<?xi32>> {
    %d1 = gpu.alloc(%c4) : memref<?xi32>
    gpu.memcpy %d1, %d0 : memref<?xi32>, memref<?xi32>
    async.yield %d1 : memref<?xi32>
  }
  %a2, %v2 = async.execute [%a0] (%v0 as %d0 : !async.value<memref<?xi32>>) -> !async.value<memref<?xi32>> {
    %d2 = gpu.alloc(%c4) : memref<?xi32>
    gpu.memcpy %d2, %d0 : memref<?xi32>, memref<?xi32>
    async.yield %d2 : memref<?xi32>
  }
  %a3 = async.execute [%a1, %a2] (%v1 as %d1 : !async.value<memref<?xi32>>,
                                  %v2 as %d2 : !async.value<memref<?xi32>>) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %x = memref.load %d1[%tx] : memref<?xi32>
      %y = memref.load %d2[%tx] : memref<?xi32>
      %s = arith.muli %x, %y : i32
      memref.store %s, %h[%tx] : memref<?xi32>
      gpu.terminator
    }
    async.yield
  }
  async.await %a3 : !async.token
  call @printMemrefI32(%hu) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
