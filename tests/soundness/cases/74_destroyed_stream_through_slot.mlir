// Case 74 (selfcheck's class of case 71): the stream through an llvm.alloca
// slot, destroyed before its synchronize.  Source as case 54.
// twin: memset on a loaded copy, synchronize and destroy another load.
// bug: the loaded stream destroyed, then synchronized through the second
// load: the read races the memset.
// bug:memset-after-destroy: the first load destroyed before the memset on
// it: the memset never runs.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %v = memref.load %m[%c0] : memref<4xi32> loc("op5")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %l1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %l2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l2) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l2) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %l1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%l1) : (!llvm.ptr) -> () loc("op4")
    %l2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l2) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug:memset-after-destroy
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamDestroy(%l1) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemset32(%p, %v, %n, %l1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %l2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l2) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }
