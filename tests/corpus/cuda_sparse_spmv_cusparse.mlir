// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-19 mlir-opt-22
// SHAPE: LLVM sparse-tensor CUDA integration test (mlir/test/Integration/Dialect/SparseTensor/GPU/CUDA/sparse-mv-lib.mlir): cuSPARSE SpMV through gpu sparse ops
// y = A*x with A in CSR form, all on one token chain: the buffers are
// uploaded, cuSPARSE handles created, SpMV run, everything torn down.
func.func @spmv(%rowPos: memref<?xindex>, %colIdx: memref<?xindex>, %vals: memref<?xf64>,
                %x: memref<?xf64>, %y: memref<?xf64>, %rows: index, %cols: index, %nnz: index) {
  %c0 = arith.constant 0 : index
  %npos = memref.dim %rowPos, %c0 : memref<?xindex>
  %t0 = gpu.wait async
  %dpos, %t1 = gpu.alloc async [%t0] (%npos) : memref<?xindex>
  %t2 = gpu.memcpy async [%t1] %dpos, %rowPos : memref<?xindex>, memref<?xindex>
  %didx, %t3 = gpu.alloc async [%t2] (%nnz) : memref<?xindex>
  %t4 = gpu.memcpy async [%t3] %didx, %colIdx : memref<?xindex>, memref<?xindex>
  %dval, %t5 = gpu.alloc async [%t4] (%nnz) : memref<?xf64>
  %t6 = gpu.memcpy async [%t5] %dval, %vals : memref<?xf64>, memref<?xf64>
  %dx, %t7 = gpu.alloc async [%t6] (%cols) : memref<?xf64>
  %t8 = gpu.memcpy async [%t7] %dx, %x : memref<?xf64>, memref<?xf64>
  %dy, %t9 = gpu.alloc async [%t8] (%rows) : memref<?xf64>
  %t10 = gpu.memcpy async [%t9] %dy, %y : memref<?xf64>, memref<?xf64>

  %spA, %t11 = gpu.create_csr async [%t10] %rows, %cols, %nnz, %dpos, %didx, %dval
      : memref<?xindex>, memref<?xindex>, memref<?xf64>
  %dnX, %t12 = gpu.create_dn_tensor async [%t11] %dx, %cols : index into memref<?xf64>
  %dnY, %t13 = gpu.create_dn_tensor async [%t12] %dy, %rows : index into memref<?xf64>
  %bufSz, %t14 = gpu.spmv_buffer_size async [%t13] %spA, %dnX, %dnY into f64
  %buf, %t15 = gpu.alloc async [%t14] (%bufSz) : memref<?xi8>
  %t16 = gpu.spmv async [%t15] %spA, %dnX, %dnY, %buf : memref<?xi8> into f64
  %t17 = gpu.destroy_sp_mat async [%t16] %spA
  %t18 = gpu.destroy_dn_tensor async [%t17] %dnX
  %t19 = gpu.destroy_dn_tensor async [%t18] %dnY
  %t20 = gpu.memcpy async [%t19] %y, %dy : memref<?xf64>, memref<?xf64>
  %t21 = gpu.dealloc async [%t20] %dpos : memref<?xindex>
  %t22 = gpu.dealloc async [%t21] %didx : memref<?xindex>
  %t23 = gpu.dealloc async [%t22] %dval : memref<?xf64>
  %t24 = gpu.dealloc async [%t23] %dx : memref<?xf64>
  %t25 = gpu.dealloc async [%t24] %dy : memref<?xf64>
  %t26 = gpu.dealloc async [%t25] %buf : memref<?xi8>
  gpu.wait [%t26]
  return
}
