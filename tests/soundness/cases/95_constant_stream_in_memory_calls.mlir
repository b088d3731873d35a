// Case 95 (selfcheck, handle-like constants): an integer constant as the
// stream operand of the memory calls, not of a synchronize.  Found by
// `gpu-alloc-verify selfcheck` (operator handle-constant-use, which puts
// `inttoptr 0|1|3` in a runtime call's first handle operand; 1 is CUDA's
// CU_STREAM_LEGACY, a stream, so the case uses 7 and 3): the role of an
// operand decides (`runtime_api.SIGNATURES`), wherever it sits in the call:
// mgpuMemcpy's fourth, mgpuMemAlloc's second, mgpuMemFree's second.  The
// checking runtime records `invalid-handle` for each (CUDA:
// CUDA_ERROR_INVALID_HANDLE), although the alloc's wrapper then ignores it.
// Source: a device buffer allocated on a stream, a host buffer copied into
// it, the device buffer freed on the stream, then the host waits.
// twin: mlir-opt-19's calls (the copy, alloc and free on the created stream).
// bug: the copy on `inttoptr 7` (the created stream still synchronized and
// destroyed).
// bug:alloc: the device alloc on `inttoptr 3`.
// bug:free: the free on `inttoptr 7`, made from an i32 7 zero-extended.

// ---- source
func.func @main() {
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %t0 = gpu.wait async loc("op2")
  %d, %t1 = gpu.alloc async [%t0] () : memref<4xi32> loc("op3")
  %t2 = gpu.memcpy async [%t1] %d, %m : memref<4xi32>, memref<4xi32> loc("op4")
  %t3 = gpu.dealloc async [%t2] %d : memref<4xi32> loc("op5")
  gpu.wait [%t3] loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemFree(%d, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(7 : i64) : i64 loc("op4")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %bad) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemFree(%d, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:alloc
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %d = llvm.call @mgpuMemAlloc(%sz, %bad, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemFree(%d, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:free
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op4")
    %k32 = llvm.mlir.constant(7 : i32) : i32 loc("op5")
    %k = llvm.zext %k32 : i32 to i64 loc("op5")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op5")
    llvm.call @mgpuMemFree(%d, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
