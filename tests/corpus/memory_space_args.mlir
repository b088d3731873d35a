// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: memref<4xf32, 1> arguments (buffers of unknown kind) copied and passed to a kernel;
// WHY: one stream, destroyed once. 16: no gpu.binary.
// Buffers in memory space 1 (global) passed in by the caller, an axpy
// kernel over them, results copied to a default-space host buffer.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @axpy(%x: memref<4xf32, 1>, %y: memref<4xf32, 1>, %a: f32) kernel {
      %i = gpu.thread_id x
      %xv = memref.load %x[%i] : memref<4xf32, 1>
      %yv = memref.load %y[%i] : memref<4xf32, 1>
      %m = arith.mulf %a, %xv : f32
      %s = arith.addf %m, %yv : f32
      memref.store %s, %y[%i] : memref<4xf32, 1>
      gpu.return
    }
  }

  func.func @axpy(%x: memref<4xf32, 1>, %y: memref<4xf32, 1>, %host: memref<4xf32>, %a: f32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %s = gpu.wait async
    %t1 = gpu.memcpy async [%s] %x, %host : memref<4xf32, 1>, memref<4xf32>
    %t2 = gpu.launch_func async [%t1] @k::@axpy blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%x : memref<4xf32, 1>, %y : memref<4xf32, 1>, %a : f32)
    %t3 = gpu.memcpy async [%t2] %host, %y : memref<4xf32>, memref<4xf32, 1>
    gpu.wait [%t3]
    return
  }
}
