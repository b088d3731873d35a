// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: 16 emits a global per launch and fails with 'redefinition of symbol named
// WHY: smooth_pass_kernel_name' (exit 1); 19/22 launch both on the chain's stream.
// The same serialized kernel launched twice in a row (two passes of a
// smoothing filter).
module attributes {gpu.container_module} {
  gpu.module @smooth attributes {gpu.binary = "\7FELF-placeholder-cubin"} {
    gpu.func @pass(%v: memref<128xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %v[%i] : memref<128xf32>
      %q = arith.constant 0.25 : f32
      %y = arith.mulf %x, %q : f32
      memref.store %y, %v[%i] : memref<128xf32>
      gpu.return
    }
  }

  func.func @smooth_twice(%v: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %s = gpu.wait async
    %t1 = gpu.launch_func async [%s] @smooth::@pass blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%v : memref<128xf32>)
    %t2 = gpu.launch_func async [%t1] @smooth::@pass blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%v : memref<128xf32>)
    gpu.wait [%t2]
    return
  }
}
