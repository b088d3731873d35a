// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Constant trip count 4 (within the loop bound): per iteration one stream, created and
// WHY: destroyed. 16: no gpu.binary.
// Process a buffer in 4 chunks, one stream per chunk, each chunk with its
// own scratch allocation and kernel launch.
module attributes {gpu.container_module} {
  gpu.module @chunks {
    gpu.func @relu(%buf: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<256xf32>
      %zero = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %v, %zero : f32
      %r = arith.select %neg, %zero, %v : f32
      memref.store %r, %buf[%i] : memref<256xf32>
      gpu.return
    }
  }

  func.func @relu_chunks(%host: memref<4x256xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    scf.for %chunk = %c0 to %c4 step %c1 {
      %s = gpu.wait async
      %d, %t1 = gpu.alloc async [%s] () : memref<256xf32>
      %t2 = gpu.launch_func async [%t1] @chunks::@relu blocks in (%c1, %c1, %c1)
          threads in (%c256, %c1, %c1) args(%d : memref<256xf32>)
      %t3 = gpu.dealloc async [%t2] %d : memref<256xf32>
      gpu.wait [%t3]
    }
    return
  }
}
