// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: func.func(gpu-async-region),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM SYCL integration test (mlir/test/Integration/GPU/SYCL/gpu-memcpy-addf32-to-spirv.mlir): sync alloc/memcpy around an add kernel, made async by gpu-async-region
module @add attributes {gpu.container_module} {
  func.func @test(%a: memref<2x2x2xf32>, %b: memref<2x2x2xf32>) -> memref<8xf32> {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %da = gpu.alloc () : memref<2x2x2xf32>
    gpu.memcpy %da, %a : memref<2x2x2xf32>, memref<2x2x2xf32>
    %db = gpu.alloc () : memref<2x2x2xf32>
    gpu.memcpy %db, %b : memref<2x2x2xf32>, memref<2x2x2xf32>
    %dc = gpu.alloc () : memref<8xf32>
    %fa = memref.collapse_shape %da [[0, 1, 2]] : memref<2x2x2xf32> into memref<8xf32>
    %fb = memref.collapse_shape %db [[0, 1, 2]] : memref<2x2x2xf32> into memref<8xf32>
    gpu.launch_func @kernels::@add blocks in (%c2, %c2, %c2) threads in (%c1, %c1, %c1)
        args(%fa : memref<8xf32>, %fb : memref<8xf32>, %dc : memref<8xf32>)
    %host = memref.alloc() : memref<8xf32>
    gpu.memcpy %host, %dc : memref<8xf32>, memref<8xf32>
    gpu.dealloc %da : memref<2x2x2xf32>
    gpu.dealloc %db : memref<2x2x2xf32>
    gpu.dealloc %dc : memref<8xf32>
    return %host : memref<8xf32>
  }

  gpu.module @kernels {
    gpu.func @add(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) kernel {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %x = gpu.block_id x
      %y = gpu.block_id y
      %z = gpu.block_id z
      %i0 = arith.muli %x, %c4 : index
      %i1 = arith.muli %y, %c2 : index
      %i2 = arith.addi %i0, %i1 : index
      %i = arith.addi %i2, %z : index
      %va = memref.load %a[%i] : memref<8xf32>
      %vb = memref.load %b[%i] : memref<8xf32>
      %s = arith.addf %va, %vb : f32
      memref.store %s, %c[%i] : memref<8xf32>
      gpu.return
    }
  }
}
