// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Each async launch without a dependency creates its own stream (19, 22); gpu.wait [%t1, %t2]
// WHY: synchronizes and destroys both. 16: no gpu.binary.
// Two independent kernels, each launched async without a dependency (each
// starts its own stream); the host waits for both at once.
module attributes {gpu.container_module} {
  gpu.module @init {
    gpu.func @iota(%idx: memref<?xindex>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        memref.store %i, %idx[%i] : memref<?xindex>
      }
      gpu.return
    }
    gpu.func @fill(%buf: memref<?xf32>, %n: index, %value: f32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        memref.store %value, %buf[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @init_buffers(%idx: memref<?xindex>, %buf: memref<?xf32>, %value: f32) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %idx, %c0 : memref<?xindex>
    %g = arith.ceildivui %n, %c128 : index
    %t1 = gpu.launch_func async @init::@iota blocks in (%g, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%idx : memref<?xindex>, %n : index)
    %t2 = gpu.launch_func async @init::@fill blocks in (%g, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%buf : memref<?xf32>, %n : index, %value : f32)
    gpu.wait [%t1, %t2]
    return %n : index
  }
}
