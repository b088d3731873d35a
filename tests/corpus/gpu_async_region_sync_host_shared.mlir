// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 27:12
// POINTS mlir-opt-22 lowering-complete: 27:12
// PIPELINE: func.func(gpu-async-region),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu-async-region makes the host_shared alloc async (no sync alloc enters gpu-to-llvm);
// WHY: 19/22 leave it unconverted with a fresh stream handed to it. 16 rejects it.
// Written synchronously and made async by func.func(gpu-async-region):
// the host_shared allocation becomes `gpu.alloc async [...] host_shared`.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @square(%buf: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<8xf32>
      %sq = arith.mulf %v, %v : f32
      memref.store %sq, %buf[%i] : memref<8xf32>
      gpu.return
    }
  }

  func.func @square_in_place(%x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = gpu.alloc host_shared () : memref<8xf32>
    memref.store %x, %buf[%c0] : memref<8xf32>
    gpu.launch_func @k::@square blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%buf : memref<8xf32>)
    %r = memref.load %buf[%c0] : memref<8xf32>
    gpu.dealloc %buf : memref<8xf32>
    return %r : f32
  }
}
