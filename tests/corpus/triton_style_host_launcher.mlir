// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: async-order not-applicable: the C-interface wrapper runs @add, whose one edge orders no lowered work.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Triton/IREE-style host launcher (triton-lang launcher stubs, IREE HAL dispatch): C-interface entry, grid from ceildiv of a dynamic size, launch on the caller's stream token
module attributes {gpu.container_module} {
  gpu.module @triton_kernels {
    gpu.func @add_kernel(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel {
      %pid = gpu.block_id x
      %tid = gpu.thread_id x
      %c128 = arith.constant 128 : index
      %b = arith.muli %pid, %c128 : index
      %i = arith.addi %b, %tid : index
      %ii = arith.index_cast %i : index to i32
      %m = arith.cmpi slt, %ii, %n : i32
      scf.if %m {
        %a = memref.load %x[%i] : memref<?xf32>
        %c = memref.load %y[%i] : memref<?xf32>
        %s = arith.addf %a, %c : f32
        memref.store %s, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ni = arith.index_cast %n : index to i32
    %grid = arith.ceildivui %n, %c128 : index
    %stream = gpu.wait async
    %t = gpu.launch_func async [%stream] @triton_kernels::@add_kernel blocks in (%grid, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %out : memref<?xf32>, %ni : i32)
    gpu.wait [%t]
    return
  }
}
