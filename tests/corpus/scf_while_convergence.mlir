// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds stream-no-leak=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds stream-no-leak=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: A data-dependent scf.while makes and destroys a stream per iteration: summarized, holds;
// WHY: async-order unknown (order across iterations). 16 rejects the sync host_shared alloc.
// Jacobi-style iteration: launch, wait, read a host_shared residual flag,
// repeat until it converges.
module attributes {gpu.container_module} {
  gpu.module @solver {
    gpu.func @sweep(%grid: memref<?xf32>, %flag: memref<1xi32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %off = arith.muli %bid, %bdim : index
      %i = arith.addi %off, %tid : index
      %last = arith.subi %n, %c1 : index
      %lo = arith.cmpi ugt, %i, %c0 : index
      %hi = arith.cmpi ult, %i, %last : index
      %inner = arith.andi %lo, %hi : i1
      scf.if %inner {
        %im1 = arith.subi %i, %c1 : index
        %ip1 = arith.addi %i, %c1 : index
        %l = memref.load %grid[%im1] : memref<?xf32>
        %r = memref.load %grid[%ip1] : memref<?xf32>
        %half = arith.constant 0.5 : f32
        %s = arith.addf %l, %r : f32
        %avg = arith.mulf %s, %half : f32
        memref.store %avg, %grid[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @solve(%grid: memref<?xf32>, %max_iters: i32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %n = memref.dim %grid, %c0 : memref<?xf32>
    %blocks = arith.ceildivui %n, %c64 : index
    %flag = gpu.alloc host_shared () : memref<1xi32>
    %iters = scf.while (%k = %zero) : (i32) -> i32 {
      memref.store %zero, %flag[%c0] : memref<1xi32>
      %s = gpu.wait async
      %t = gpu.launch_func async [%s] @solver::@sweep blocks in (%blocks, %c1, %c1)
          threads in (%c64, %c1, %c1) args(%grid : memref<?xf32>, %flag : memref<1xi32>, %n : index)
      gpu.wait [%t]
      %changed = memref.load %flag[%c0] : memref<1xi32>
      %busy = arith.cmpi ne, %changed, %zero : i32
      %more = arith.cmpi slt, %k, %max_iters : i32
      %go = arith.andi %busy, %more : i1
      scf.condition(%go) %k : i32
    } do {
    ^bb0(%k: i32):
      %k1 = arith.addi %k, %one : i32
      scf.yield %k1 : i32
    }
    %s = gpu.wait async
    %t = gpu.dealloc async [%s] %flag : memref<1xi32>
    gpu.wait [%t]
    return %iters : i32
  }
}
