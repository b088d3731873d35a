// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-19 stream-no-leak: 31:11
// POINTS mlir-opt-22 stream-no-leak: 31:11
// WHY: gpu.wait async [%p2] records an event on the producer stream and never destroys that stream
// WHY: (19/22 upstream defect, README findings). 16 needs a serialized module.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Polygeist cudaStreamCreate/cudaEventRecord/cudaStreamWaitEvent programs raised to gpu tokens: a producer stream and a consumer stream joined by gpu.wait async [%t]
module attributes {gpu.container_module} {
  gpu.module @__polygeist_gpu_module {
    gpu.func @produce(%buf: memref<512xf32>) kernel {
      %tx = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %buf[%tx] : memref<512xf32>
      gpu.return
    }
    gpu.func @consume(%buf: memref<512xf32>, %out: memref<512xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %buf[%tx] : memref<512xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %out[%tx] : memref<512xf32>
      gpu.return
    }
  }

  func.func @main(%host: memref<512xf32>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %c1 = arith.constant 1 : index
    %c512 = arith.constant 512 : index
    %s0 = gpu.wait async
    %buf, %p1 = gpu.alloc async [%s0] () : memref<512xf32>
    %p2 = gpu.launch_func async [%p1] @__polygeist_gpu_module::@produce blocks in (%c1, %c1, %c1) threads in (%c512, %c1, %c1)
        args(%buf : memref<512xf32>)
    %s1 = gpu.wait async [%p2]
    %out, %q1 = gpu.alloc async [%s1] () : memref<512xf32>
    %q2 = gpu.launch_func async [%q1] @__polygeist_gpu_module::@consume blocks in (%c1, %c1, %c1) threads in (%c512, %c1, %c1)
        args(%buf : memref<512xf32>, %out : memref<512xf32>)
    %q3 = gpu.memcpy async [%q2] %host, %out : memref<512xf32>, memref<512xf32>
    %q4 = gpu.dealloc async [%q3] %out : memref<512xf32>
    %q5 = gpu.dealloc async [%q4] %buf : memref<512xf32>
    gpu.wait [%q5]
    return
  }
}
// DIFFERENTIAL mlir-opt-19: violated: a stream the lowered code creates stays live at exit, as stream-no-leak=violated says
// DIFFERENTIAL mlir-opt-22: violated: a stream the lowered code creates stays live at exit, as stream-no-leak=violated says
