// Case 72 (selfcheck, moved host accesses): two host stores to one element
// keep their program order.  Found by `gpu-alloc-verify selfcheck`
// (operator move-host-access, on mlir-opt-19/22 and xdsl:split-api output):
// the lowered code stores 1.0 then 2.0 where the source stores 2.0 then 1.0,
// so the buffer ends with 2.0 where the source's ends with 1.0 (execution:
// "op1#0 ends with 00000040,0000803f*15, the source's with 0000803f*16 (work ran
// in another order)"), yet async-order says holds: it orders host
// accesses against device work only, not against each other.
// twin: the runtime calls and stores of the real mlir-opt-19 output (store
// 2.0, then store 1.0; the memref descriptor left out).
// bug: the two stores swapped.

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %cst2 = arith.constant 2.0 : f32
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<16xf32>, f32 loc("op3")
  gpu.wait [%t2] loc("op4")
  memref.store %cst2, %m[%c0] : memref<16xf32> loc("op5")
  memref.store %cst, %m[%c0] : memref<16xf32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32 loc("op1")
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
    llvm.store %two, %a : f32, !llvm.ptr loc("op5")
    %b = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op6")
    llvm.store %one, %b : f32, !llvm.ptr loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32 loc("op1")
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
    %b = llvm.getelementptr %buf[%c0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op6")
    llvm.store %one, %b : f32, !llvm.ptr loc("op6")
    llvm.store %two, %a : f32, !llvm.ptr loc("op5")
    llvm.return
  }
