// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 16:10
// POINTS mlir-opt-22 lowering-complete: 16:10
// WHY: {gpu.alloc_shared} is a discardable attribute, not the host_shared keyword: a sync non-shared gpu.alloc,
// WHY: left unconverted by 19/22 gpu-to-llvm while mlir-opt exits 0 (upstream limitation). 16 needs a serialized module.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Intel mlir-extensions (test/Transforms/InsertGpuAllocs/*.mlir): output of insert-gpu-allocs, gpu.alloc with {gpu.alloc_shared} and no host_shared keyword
module @addt attributes {gpu.container_module} {
  func.func @addt(%arg0: memref<2x5xf32>, %arg1: memref<2x5xf32>) -> memref<2x5xf32> {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %0 = gpu.alloc () {gpu.alloc_shared} : memref<2x5xf32>
    memref.copy %arg1, %0 : memref<2x5xf32> to memref<2x5xf32>
    %1 = gpu.alloc () {gpu.alloc_shared} : memref<2x5xf32>
    memref.copy %arg0, %1 : memref<2x5xf32> to memref<2x5xf32>
    %2 = gpu.alloc () {gpu.alloc_shared} : memref<2x5xf32>
    gpu.launch_func @addt_kernel::@addt_kernel blocks in (%c2, %c5, %c1) threads in (%c1, %c1, %c1)
        args(%1 : memref<2x5xf32>, %0 : memref<2x5xf32>, %2 : memref<2x5xf32>)
    return %2 : memref<2x5xf32>
  }

  gpu.module @addt_kernel {
    gpu.func @addt_kernel(%a: memref<2x5xf32>, %b: memref<2x5xf32>, %c: memref<2x5xf32>) kernel {
      %x = gpu.block_id x
      %y = gpu.block_id y
      %va = memref.load %a[%x, %y] : memref<2x5xf32>
      %vb = memref.load %b[%x, %y] : memref<2x5xf32>
      %s = arith.addf %va, %vb : f32
      memref.store %s, %c[%x, %y] : memref<2x5xf32>
      gpu.return
    }
  }
}
