// Case 112 (issue 43): the dependent memset on a second stream behind an event.
// Source: case 110's.
// twin: op5 and op6 on %s2, which waits on an event recorded on %s after op4.
// bug: op5 on %s itself, issued above op4; the event recorded after both
// orders op6 after them, but op5 runs before op4.

// ---- source
func.func @main() {
  %c = arith.constant 7 : i32
  %t0 = gpu.wait async loc("op1")
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xi32> loc("op2")
  %b, %t2 = gpu.alloc async [%t1] () : memref<16xi32> loc("op3")
  %t3 = gpu.memset async [%t2] %a, %c : memref<16xi32>, i32 loc("op4")
  %t4 = gpu.memset async [%t3] %b, %c : memref<16xi32>, i32 loc("op5")
  %t5 = gpu.memset async [%t4] %a, %c : memref<16xi32>, i32 loc("op6")
  gpu.wait [%t5] loc("op7")
  return
}

// ---- twin
  llvm.func @main() {
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %n = llvm.mlir.constant(16 : i64) : i64
    %bytes = llvm.mlir.constant(64 : i64) : i64
    %f = llvm.mlir.constant(0 : i8) : i8
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuMemAlloc(%bytes, %s, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %b = llvm.call @mgpuMemAlloc(%bytes, %s, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemset32(%a, %c7, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%s2, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%b, %c7, %n, %s2) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%a, %c7, %n, %s2) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op7")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %n = llvm.mlir.constant(16 : i64) : i64
    %bytes = llvm.mlir.constant(64 : i64) : i64
    %f = llvm.mlir.constant(0 : i8) : i8
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuMemAlloc(%bytes, %s, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %b = llvm.call @mgpuMemAlloc(%bytes, %s, %f) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemset32(%b, %c7, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%a, %c7, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%s2, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%a, %c7, %n, %s2) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op7")
    llvm.return
  }
