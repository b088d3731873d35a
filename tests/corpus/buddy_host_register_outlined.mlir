// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: 16 needs a serialized kernel module. 19/22 lower each gpu.host_register to mgpuMemHostRegisterMemRef and the
// WHY: launch to a stream-less gpu.launch_func: no gpu op or token left, no stream made.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Buddy-MLIR GPU examples (buddy-compiler/buddy-mlir examples/BuddyLlama/llama.sh): parallel loops mapped to GPU, gpu-kernel-outlining, then -gpu-host-register registers each host buffer (unranked cast) before the launch; C wrappers on the entry; printMemrefF32 of the result
module attributes {gpu.container_module} {
  func.func @forward(%x: memref<64xf32>, %w: memref<64xf32>, %y: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %ux = memref.cast %x : memref<64xf32> to memref<*xf32>
    gpu.host_register %ux : memref<*xf32>
    %uw = memref.cast %w : memref<64xf32> to memref<*xf32>
    gpu.host_register %uw : memref<*xf32>
    %uy = memref.cast %y : memref<64xf32> to memref<*xf32>
    gpu.host_register %uy : memref<*xf32>
    gpu.launch_func @forward_kernel::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%x : memref<64xf32>, %w : memref<64xf32>, %y : memref<64xf32>)
    call @printMemrefF32(%uy) : (memref<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
  gpu.module @forward_kernel {
    gpu.func @forward_kernel(%x: memref<64xf32>, %w: memref<64xf32>, %y: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<64xf32>
      %b = memref.load %w[%i] : memref<64xf32>
      %m = arith.mulf %a, %b : f32
      %z = arith.constant 0.0 : f32
      %pos = arith.cmpf ogt, %m, %z : f32
      %r = arith.select %pos, %m, %z : f32
      memref.store %r, %y[%i] : memref<64xf32>
      gpu.return
    }
  }
}
