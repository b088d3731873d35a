// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Intel mlir-extensions (test/Integration/Dialect/XeGPU/*.mlir with printAllcloseF32): GPU result checked against a host reference loop
module @ref attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %cf = arith.constant 0.5 : f32
    %in = memref.alloc() : memref<256xf32>
    %ref = memref.alloc() : memref<256xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      memref.store %fi, %in[%i] : memref<256xf32>
      %r = arith.mulf %fi, %cf : f32
      memref.store %r, %ref[%i] : memref<256xf32>
    }
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<256xf32>
    %t2 = gpu.memcpy async [%t1] %d, %in : memref<256xf32>, memref<256xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@half blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%d : memref<256xf32>, %cf : f32)
    %out = memref.alloc() : memref<256xf32>
    %t4 = gpu.memcpy async [%t3] %out, %d : memref<256xf32>, memref<256xf32>
    %t5 = gpu.dealloc async [%t4] %d : memref<256xf32>
    gpu.wait [%t5]
    %uo = memref.cast %out : memref<256xf32> to memref<*xf32>
    %ur = memref.cast %ref : memref<256xf32> to memref<*xf32>
    call @printAllcloseF32(%uo, %ur) : (memref<*xf32>, memref<*xf32>) -> ()
    memref.dealloc %in : memref<256xf32>
    memref.dealloc %ref : memref<256xf32>
    memref.dealloc %out : memref<256xf32>
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}

  gpu.module @kernels {
    gpu.func @half(%buf: memref<256xf32>, %f: f32) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %buf[%tx] : memref<256xf32>
      %m = arith.mulf %v, %f : f32
      memref.store %m, %buf[%tx] : memref<256xf32>
      gpu.return
    }
  }
}
