// Case 98 (selfcheck, handle-like constants; async-order): work enqueued by
// a helper on a stream that is an integer constant.  Found by `gpu-alloc-
// verify selfcheck` (operator handle-constant-use on a memset's stream,
// async-order said holds where execution saw the host read the buffer
// before the memset's value: the wrapper hands the constant to CUDA, which
// rejects it, so the memset never runs).  Found with `inttoptr 1`, which
// CUDA defines as CU_STREAM_LEGACY, a stream (case 102): the case uses 3,
// no stream on any profile.  Case 82 has it inline and through a stack
// slot; here the constant crosses a call, so the helper, inlined at its
// call, must keep the constant as no stream: nothing synchronizes it.
// Source: case 82's (memset on a new stream, host wait, host read).
// twin: @fill(%buf, %s) memsets on the created stream and synchronizes it;
// main destroys the stream and reads.
// bug: @fill given `inttoptr 3`.
// bug:returned: the stream @pick returns is `inttoptr 3` (made in @pick),
// given to @fill.
// bug:split: @fill_only memsets on the constant it is given; main
// synchronizes the created stream (which never had the memset).

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
  llvm.func @fill(%buf: !llvm.ptr, %q: !llvm.ptr) {
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op3")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @fill(%buf, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @fill(%buf: !llvm.ptr, %q: !llvm.ptr) {
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op3")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    llvm.call @fill(%buf, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }

// ---- bug:returned
  llvm.func @pick() -> !llvm.ptr {
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.return %bad : !llvm.ptr
  }
  llvm.func @fill(%buf: !llvm.ptr, %q: !llvm.ptr) {
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op3")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %p = llvm.call @pick() : () -> !llvm.ptr loc("op2")
    llvm.call @fill(%buf, %p) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }

// ---- bug:split
  llvm.func @fill_only(%buf: !llvm.ptr, %q: !llvm.ptr) {
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op3")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %q) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.return
  }
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %shared = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op3")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op3")
    llvm.call @fill_only(%buf, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    %v = llvm.load %a : !llvm.ptr -> f32 loc("op5")
    llvm.return
  }
