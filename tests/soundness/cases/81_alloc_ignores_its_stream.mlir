// Case 81 (selfcheck, reordered calls on mlir-opt-19 output): mgpuMemAlloc
// ignores its stream.  Every upstream wrapper allocates at once, so an
// async alloc lowered onto a stream does not wait for the work queued
// there, and a host-synchronous alloc after a memset does not finish the
// memset.  The analysis took the alloc for stream work in FIFO order: a
// host wait on the alloc's token then "ordered" the memset before the
// host's read, and a lowering that destroys the stream before
// synchronizing it (selfcheck's swap-adjacent-calls) was holds.
// twin: 19's calls: memset and alloc on one stream, synchronize, destroy,
// read.
// bug: destroy, then synchronize (the synchronize of a destroyed stream
// waits for nothing; only the alloc stands between memset and read).
// bug:no-sync: the synchronize dropped.

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<16xf32>, f32 loc("op3")
  %m2, %t3 = gpu.alloc async [%t2] () : memref<16xf32> loc("op4")
  gpu.wait [%t3] loc("op5")
  %v = memref.load %m[%c0] : memref<16xf32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %plain = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %buf2 = llvm.call @mgpuMemAlloc(%bytes, %s, %plain) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op6")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %plain = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %buf2 = llvm.call @mgpuMemAlloc(%bytes, %s, %plain) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op6")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op6")
    llvm.return
  }

// ---- bug:no-sync
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %plain = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %buf2 = llvm.call @mgpuMemAlloc(%bytes, %s, %plain) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op6")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op6")
    llvm.return
  }
