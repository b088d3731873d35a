// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Dynamic 2-D sizes from memref.dim feed the allocs; one stream chain, destroyed once.
// WHY: 16: no gpu.binary.
// A 2-D transpose: sizes come from memref.dim of the caller's buffers,
// 2-D grid, bounds check on both dimensions; returns the element count.
module attributes {gpu.container_module} {
  gpu.module @transpose {
    gpu.func @transpose(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %rows: index, %cols: index) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %ox = arith.muli %bx, %dx : index
      %oy = arith.muli %by, %dy : index
      %col = arith.addi %ox, %tx : index
      %row = arith.addi %oy, %ty : index
      %rin = arith.cmpi ult, %row, %rows : index
      %cin = arith.cmpi ult, %col, %cols : index
      %both = arith.andi %rin, %cin : i1
      scf.if %both {
        %v = memref.load %in[%row, %col] : memref<?x?xf32>
        memref.store %v, %out[%col, %row] : memref<?x?xf32>
      }
      gpu.return
    }
  }

  func.func @run_transpose(%host_in: memref<?x?xf32>, %host_out: memref<?x?xf32>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %rows = memref.dim %host_in, %c0 : memref<?x?xf32>
    %cols = memref.dim %host_in, %c1 : memref<?x?xf32>
    %gx = arith.ceildivui %cols, %c16 : index
    %gy = arith.ceildivui %rows, %c16 : index
    %s = gpu.wait async
    %din, %t1 = gpu.alloc async [%s] (%rows, %cols) : memref<?x?xf32>
    %dout, %t2 = gpu.alloc async [%t1] (%cols, %rows) : memref<?x?xf32>
    %t3 = gpu.memcpy async [%t2] %din, %host_in : memref<?x?xf32>, memref<?x?xf32>
    %t4 = gpu.launch_func async [%t3] @transpose::@transpose
        blocks in (%gx, %gy, %c1) threads in (%c16, %c16, %c1)
        args(%din : memref<?x?xf32>, %dout : memref<?x?xf32>, %rows : index, %cols : index)
    %t5 = gpu.memcpy async [%t4] %host_out, %dout : memref<?x?xf32>, memref<?x?xf32>
    %t6 = gpu.dealloc async [%t5] %din : memref<?x?xf32>
    %t7 = gpu.dealloc async [%t6] %dout : memref<?x?xf32>
    gpu.wait [%t7]
    %count = arith.muli %rows, %cols : index
    return %count : index
  }
}
