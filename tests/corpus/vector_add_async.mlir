// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: One token chain: one stream (mgpuStreamCreate at the first gpu.wait async), synchronized
// WHY: and destroyed by the final gpu.wait; allocs pass host_shared=0. 16: no gpu.binary.
// The CUDA-sample shape: copy in, launch, copy out, free, all on one token chain.
module attributes {gpu.container_module} {
  gpu.module @vadd {
    gpu.func @vector_add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) kernel
        attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %off = arith.muli %bid, %bdim : index
      %i = arith.addi %off, %tid : index
      %ok = arith.cmpi slt, %i, %n : index
      scf.if %ok {
        %av = memref.load %a[%i] : memref<?xf32>
        %bv = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %av, %bv : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @vector_add(%ha: memref<?xf32>, %hb: memref<?xf32>, %hc: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %ha, %c0 : memref<?xf32>
    %grid = arith.ceildivui %n, %c128 : index

    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %db, %t2 = gpu.alloc async [%t1] (%n) : memref<?xf32>
    %dc, %t3 = gpu.alloc async [%t2] (%n) : memref<?xf32>
    %t4 = gpu.memcpy async [%t3] %da, %ha : memref<?xf32>, memref<?xf32>
    %t5 = gpu.memcpy async [%t4] %db, %hb : memref<?xf32>, memref<?xf32>
    %t6 = gpu.launch_func async [%t5] @vadd::@vector_add
        blocks in (%grid, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<?xf32>, %db : memref<?xf32>, %dc : memref<?xf32>, %n : index)
    %t7 = gpu.memcpy async [%t6] %hc, %dc : memref<?xf32>, memref<?xf32>
    %t8 = gpu.dealloc async [%t7] %da : memref<?xf32>
    %t9 = gpu.dealloc async [%t8] %db : memref<?xf32>
    %t10 = gpu.dealloc async [%t9] %dc : memref<?xf32>
    gpu.wait [%t10]
    return
  }
}
