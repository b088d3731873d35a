// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 25:12 28:5 29:5
// POINTS mlir-opt-22 lowering-complete: 25:12 28:5 29:5
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Sync non-shared gpu.alloc, sync gpu.memcpy and sync gpu.dealloc are left as gpu ops by
// WHY: 19 and 22 (exit 0); no stream is created for the alloc. 16 rejects the sync alloc.
// Synchronous, non-shared device allocation used by a synchronous launch
// and freed synchronously: the style of code written before async tokens.
module attributes {gpu.container_module} {
  gpu.module @fill {
    gpu.func @iota(%out: memref<256xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      memref.store %v, %out[%tid] : memref<256xi32>
      gpu.return
    }
  }

  func.func @iota_to_host(%host: memref<256xi32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %dev = gpu.alloc () : memref<256xi32>
    gpu.launch_func @fill::@iota blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%dev : memref<256xi32>)
    gpu.memcpy %host, %dev : memref<256xi32>, memref<256xi32>
    gpu.dealloc %dev : memref<256xi32>
    return
  }
}
