// Case 103 (runtime-contract on the sycl profile): SYCL's wrappers take a
// `sycl::queue*` and dereference it, so no small integer is a stream there:
// `inttoptr 1` (CUDA's CU_STREAM_LEGACY) and `inttoptr 2` (CUDA's
// CU_STREAM_PER_THREAD, HIP's hipStreamPerThread), streams on cuda (case
// 102), are invalid on sycl (the checking runtime records
// `invalid-handle`).  Judged with `--runtime sycl`, so only the nine
// functions upstream's SyclRuntimeWrappers.cpp exports are used (no memcpy,
// memset or events there).
// Source: an async alloc and dealloc on one stream, awaited.
// twin: the free on the created stream.
// bug: the free on `inttoptr 1`.
// bug:per-thread: the free on `inttoptr 2`.

// ---- source
func.func @main() {
  %t0 = gpu.wait async loc("op1")
  %d, %t1 = gpu.alloc async [%t0] () : memref<4xi32> loc("op2")
  %t2 = gpu.dealloc async [%t1] %d : memref<4xi32> loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    llvm.call @mgpuMemFree(%d, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    llvm.call @mgpuMemFree(%d, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:per-thread
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(2 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    llvm.call @mgpuMemFree(%d, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
