// Case 50: a host write is ordered before later async work by program order.
// Source: the host writes a host_shared buffer, then an async memcpy reads
// it into device memory.
// twin: the store, then the copy is issued: ordered (the copy starts after
// it is issued).
// twin:slot: the same, the stream through an alloca slot.
// bug: the copy issued before the store (a reordered call): the copy may
// read the buffer before the host wrote it.
// bug:copy-in-helper: the copy issued by @copy, called before the store.
// bug:stream-via-slot: the reordered copy on a stream loaded from a slot.

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
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- twin:slot
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op3")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %l) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:copy-in-helper
  llvm.func @copy(%d: !llvm.ptr, %m: !llvm.ptr, %sz: i64, %s: !llvm.ptr) {
    llvm.call @mgpuMemcpy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    llvm.call @copy(%d, %m, %sz, %s) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:stream-via-slot
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op3")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op4")
    %d = llvm.call @mgpuMemAlloc(%sz, %s, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op4")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %l) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op2")
    llvm.store %v, %m : i32, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
