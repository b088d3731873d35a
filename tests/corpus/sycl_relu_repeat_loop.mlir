// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: The 100-round loop is closed (each stream dies in its round): summarized; async-order unknown (across iterations).
// PIPELINE: func.func(gpu-async-region),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm{use-bare-pointers-for-kernels=true}
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM SYCL integration test (mlir/test/Integration/GPU/SYCL/gpu-reluf32-to-spirv.mlir): main repeats a sync alloc/copy/launch/free helper 100 times
module @relu attributes {gpu.container_module} {
  memref.global "private" constant @__constant_4x5xf32 : memref<4x5xf32> = dense<[
    [-1.0, 2.0, -3.0, 4.0, -5.0], [1.0, -2.0, 3.0, -4.0, 5.0],
    [0.5, 0.25, -0.5, -0.25, 0.0], [9.0, -9.0, 8.0, -8.0, 7.0]]>

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c100 = arith.constant 100 : index
    %0 = memref.get_global @__constant_4x5xf32 : memref<4x5xf32>
    scf.for %it = %c0 to %c100 step %c1 {
      %1 = func.call @relu(%0) : (memref<4x5xf32>) -> memref<4x5xf32>
      %cast = memref.cast %1 : memref<4x5xf32> to memref<*xf32>
      func.call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
      memref.dealloc %1 : memref<4x5xf32>
    }
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @relu(%arg0: memref<4x5xf32>) -> memref<4x5xf32> {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %out = memref.alloc() : memref<4x5xf32>
    %din = gpu.alloc () : memref<4x5xf32>
    gpu.memcpy %din, %arg0 : memref<4x5xf32>, memref<4x5xf32>
    %dout = gpu.alloc () : memref<4x5xf32>
    gpu.launch_func @kernels::@relu blocks in (%c4, %c5, %c1) threads in (%c1, %c1, %c1)
        args(%din : memref<4x5xf32>, %dout : memref<4x5xf32>)
    gpu.memcpy %out, %dout : memref<4x5xf32>, memref<4x5xf32>
    gpu.dealloc %din : memref<4x5xf32>
    gpu.dealloc %dout : memref<4x5xf32>
    return %out : memref<4x5xf32>
  }

  gpu.module @kernels {
    gpu.func @relu(%in: memref<4x5xf32>, %out: memref<4x5xf32>) kernel {
      %zero = arith.constant 0.0 : f32
      %x = gpu.block_id x
      %y = gpu.block_id y
      %v = memref.load %in[%x, %y] : memref<4x5xf32>
      %pos = arith.cmpf ogt, %v, %zero : f32
      %r = arith.select %pos, %v, %zero : f32
      memref.store %r, %out[%x, %y] : memref<4x5xf32>
      gpu.return
    }
  }
}
