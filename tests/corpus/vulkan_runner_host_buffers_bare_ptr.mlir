// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// WHY: 16 needs a serialized kernel module. 19/22: host buffers only, one stream-less launch whose operands are
// WHY: bare pointers (use-bare-pointers-for-kernels); nothing left unconverted.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm{use-bare-pointers-for-kernels=true}
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: mlir-vulkan-runner / mlir-runner Vulkan tests (mlir/test/mlir-vulkan-runner/addf.mlir): host memref.alloc buffers handed straight to gpu.launch_func, kernels lowered with bare pointers (static shapes), results printed with printMemrefF32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel_add(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) kernel {
      %i = gpu.block_id x
      %x = memref.load %a[%i] : memref<8xf32>
      %y = memref.load %b[%i] : memref<8xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%i] : memref<8xf32>
      gpu.return
    }
  }
  func.func @main() {
    %a = memref.alloc() : memref<8xf32>
    %b = memref.alloc() : memref<8xf32>
    %c = memref.alloc() : memref<8xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.1 : f32
    %two = arith.constant 2.2 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %one, %a[%i] : memref<8xf32>
      memref.store %two, %b[%i] : memref<8xf32>
    }
    gpu.launch_func @kernels::@kernel_add blocks in (%c8, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>, %b : memref<8xf32>, %c : memref<8xf32>)
    %u = memref.cast %c : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<8xf32>
    memref.dealloc %b : memref<8xf32>
    memref.dealloc %c : memref<8xf32>
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
