// Case 102 (runtime-contract, the runtimes' own stream handles): CUDA
// defines CU_STREAM_LEGACY as `(CUstream)0x1` and CU_STREAM_PER_THREAD as
// `(CUstream)0x2` (cuda.h): `inttoptr 1` and `inttoptr 2` are streams every
// cuStream*/cuMemcpyAsync/cuLaunchKernel call takes, but no one may destroy
// them (cuStreamDestroy refuses them; the checking runtime records
// `invalid-handle`).  Each is a queue of its own, ordered with itself only,
// like the null stream: the streams mgpuStreamCreate makes are
// non-blocking.
// Source: case 50's (host store, async copy into device memory, wait).
// twin: the copy on `inttoptr 1`, that stream synchronized (the created
// stream synchronized and destroyed, as lowered): holds on cuda.
// twin:per-thread: the same on `inttoptr 2`.
// bug: the twin, then mgpuStreamDestroy of `inttoptr 1`.
// bug:per-thread: twin:per-thread, then mgpuStreamDestroy of `inttoptr 2`.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  memref.store %cst, %m[%c0] : memref<4xi32> loc("op2")
  %t0 = gpu.wait async loc("op3")
  %d, %t1 = gpu.alloc async [%t0] () : memref<4xi32> loc("op4")
  %t2 = gpu.memcpy async [%t1] %d, %m : memref<4xi32>, memref<4xi32> loc("op5")
  gpu.wait [%t2] loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %legacy = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %legacy) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%legacy) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- twin:per-thread
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(2 : i64) : i64 loc("op3")
    %pts = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %pts) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%pts) : (!llvm.ptr) -> () loc("op6")
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
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %legacy = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %legacy) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%legacy) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%legacy) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:per-thread
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(2 : i64) : i64 loc("op3")
    %pts = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %pts) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%pts) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%pts) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
