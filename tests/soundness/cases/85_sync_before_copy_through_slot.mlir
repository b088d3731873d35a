// Case 85 (selfcheck, reordered calls: synchronize-earlier and
// destroy-earlier, the class of sc_out/04177 and 04302): the stream kept in
// an llvm.alloca slot and loaded for every call; the host wait moved above
// the copy it should await.  Source: memset a, copy a to d, host wait, read
// d.
// twin: memset, copy, synchronize, destroy, each on the stream loaded from
// the slot.
// bug: the synchronize moved above the copy: it awaits the memset only, the
// read of d races the copy.
// bug:destroy-earlier: the destroy moved above the copy: the copy is issued
// on a destroyed stream (never runs), the synchronize awaits nothing; d
// ends unset, not the source's 3.
// (A free of a moved above the copy that reads a, selfcheck's other
// reordered-call shape, is left out: the copy is then a use after free,
// which execution reports as a misuse, not an order it can judge.)

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %a = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %d = gpu.alloc host_shared () : memref<4xi32> loc("op2")
  %t0 = gpu.wait async loc("op3")
  %t1 = gpu.memset async [%t0] %a, %cst : memref<4xi32>, i32 loc("op4")
  %t2 = gpu.memcpy async [%t1] %d, %a : memref<4xi32>, memref<4xi32> loc("op5")
  gpu.wait [%t2] loc("op6")
  %v = memref.load %d[%c0] : memref<4xi32> loc("op7")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %d = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %s1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%a, %v, %n, %s1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %s2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemcpy(%d, %a, %sz, %s2) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %s3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamSynchronize(%s3) : (!llvm.ptr) -> () loc("op6")
    %s4 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamDestroy(%s4) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %d : !llvm.ptr -> i32 loc("op7")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %d = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %s1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%a, %v, %n, %s1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %s3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamSynchronize(%s3) : (!llvm.ptr) -> () loc("op6")
    %s2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemcpy(%d, %a, %sz, %s2) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %s4 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamDestroy(%s4) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %d : !llvm.ptr -> i32 loc("op7")
    llvm.return
  }

// ---- bug:destroy-earlier
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %d = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %s1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%a, %v, %n, %s1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %s4 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamDestroy(%s4) : (!llvm.ptr) -> () loc("op6")
    %s2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemcpy(%d, %a, %sz, %s2) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %s3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    llvm.call @mgpuStreamSynchronize(%s3) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %d : !llvm.ptr -> i32 loc("op7")
    llvm.return
  }
