// Case 71 (selfcheck, reordered calls): work and waits on a destroyed
// stream do not happen.  Found by `gpu-alloc-verify selfcheck` (operators
// swap-adjacent-calls and destroy-earlier, on mlir-opt-19/22 and
// xdsl:split-api output): with mgpuStreamDestroy before
// mgpuStreamSynchronize the synchronize is a use after destroy (which
// stream-no-use-after-destroy reports) and awaits nothing, so the memset
// is unfinished at the host store (execution: "host-race at op5 (op1#0
// accessed while memset32 from op3 is unfinished)"), yet async-order says
// holds: it counts the synchronize of a destroyed stream as a wait.
// twin: the runtime calls of the real mlir-opt-19 output (synchronize, then
// destroy; the memref descriptor left out).
// bug: destroy, then synchronize.  bug:destroy-first: the stream destroyed
// before the memset is enqueued on it (the memset never runs: the buffer
// does not end as the source's).

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<16xf32>, f32 loc("op3")
  gpu.wait [%t2] loc("op4")
  memref.store %cst, %m[%c0] : memref<16xf32> loc("op5")
  return
}

// ---- twin
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %end = llvm.getelementptr %z[%n] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %bytes = llvm.ptrtoint %end : !llvm.ptr to i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    llvm.store %one, %a : f32, !llvm.ptr loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %end = llvm.getelementptr %z[%n] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %bytes = llvm.ptrtoint %end : !llvm.ptr to i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    llvm.store %one, %a : f32, !llvm.ptr loc("op5")
    llvm.return
  }

// ---- bug:destroy-first
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %end = llvm.getelementptr %z[%n] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %bytes = llvm.ptrtoint %end : !llvm.ptr to i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    %a = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op5")
    llvm.store %one, %a : f32, !llvm.ptr loc("op5")
    llvm.return
  }
