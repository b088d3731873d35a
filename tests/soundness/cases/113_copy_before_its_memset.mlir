// Case 113 (issue 43): the copy issued before the memset it reads.
// Source: memset %a, then memcpy %b <- %a on its token.
// twin: in order.  bug: the memset moved below the copy (%b ends unset).

// ---- source
func.func @main() {
  %c = arith.constant 7 : i32
  %t0 = gpu.wait async loc("op1")
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xi32> loc("op2")
  %b, %t2 = gpu.alloc async [%t1] () : memref<16xi32> loc("op3")
  %t3 = gpu.memset async [%t2] %a, %c : memref<16xi32>, i32 loc("op4")
  %t4 = gpu.memcpy async [%t3] %b, %a : memref<16xi32>, memref<16xi32> loc("op5")
  gpu.wait [%t4] loc("op6")
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
    llvm.call @mgpuMemset32(%a, %c7, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemcpy(%b, %a, %bytes, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
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
    llvm.call @mgpuMemcpy(%b, %a, %bytes, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%a, %c7, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
