// Case 82 (selfcheck, handle-like constants): work enqueued on a stream
// that is an integer constant never runs.  The wrapper hands `inttoptr 3`
// to CUDA, which rejects it (runtime-contract reports that), so the memset
// is lost, however the host synchronizes that "stream" afterwards; the
// schedule took the constant for a stream like any other, and the
// synchronize of the same constant "ordered" the memset before the read.
// twin: the memset and the synchronize on the created stream.
// bug: both on inttoptr 3.  bug:slot: the constant through a stack slot.
// (Found with `inttoptr 1`, which CUDA defines as CU_STREAM_LEGACY, a
// stream: 3 is no stream on any profile.)

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<16xf32>, f32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %v = memref.load %m[%c0] : memref<16xf32> loc("op5")
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
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
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
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %bad) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%bad) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }

// ---- bug:slot
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %slot = llvm.alloca %c1 x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %c3 = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %bad = llvm.inttoptr %c3 : i64 to !llvm.ptr loc("op2")
    llvm.store %bad, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }
