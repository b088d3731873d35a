// Case 87 (selfcheck, moved host accesses: move-host-access, the class of
// sc_out4/00320 and 01997): a host store moved below a later memset of the
// same buffer, the buffer's pointer kept in an llvm.alloca slot and loaded
// for each access.  Source: store 7 to element 0, memset the buffer to 3,
// host wait, read element 0 (3).
// twin: store, memset, synchronize, read, each through the slot.
// bug: the store moved below the memset (above the synchronize): it races
// the memset.
// bug:past-sync: the store moved below the synchronize as well: nothing
// races, but the read sees 7, the source's 3.

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 3 : i32
  %c7 = arith.constant 7 : i32
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  memref.store %c7, %m[%c0] : memref<4xi32> loc("op2")
  %t = gpu.wait async loc("op3")
  %t2 = gpu.memset async [%t] %m, %cst : memref<4xi32>, i32 loc("op4")
  gpu.wait [%t2] loc("op5")
  %x = memref.load %m[%c0] : memref<4xi32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %m, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op2")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.store %seven, %q : i32, !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %r = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%r, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    %t = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    %x = llvm.load %t : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %m, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %r = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%r, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.store %seven, %q : i32, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    %t = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    %x = llvm.load %t : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:past-sync
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %m, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %r = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%r, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.store %seven, %q : i32, !llvm.ptr loc("op2")
    %t = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op6")
    %x = llvm.load %t : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }
