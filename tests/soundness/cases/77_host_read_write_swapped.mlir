// Case 77 (selfcheck's class of case 72): a host read and a later host
// write of one element keep their program order.  Source: memset 3, host
// wait, read element 0, then write 5 to it.
// twin: the read, then the write.
// twin:store-in-helper: the write done by @put, called after the read.
// bug: the write moved above the read: the read sees 5, the source's 3.
// bug:store-in-helper: @put called above the read.
// bug:store-no-location: @put's store without a location (unknown: the
// write may be anywhere).

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %x = memref.load %m[%c0] : memref<4xi32> loc("op5")
  memref.store %c5, %m[%c0] : memref<4xi32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.store %five, %m : i32, !llvm.ptr loc("op6")
    llvm.return
  }

// ---- twin:store-in-helper
  llvm.func @put(%p: !llvm.ptr, %w: i32) {
    llvm.store %w, %p : i32, !llvm.ptr loc("op6")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @put(%m, %five) : (!llvm.ptr, i32) -> () loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op6")
    llvm.store %five, %m : i32, !llvm.ptr loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug:store-in-helper
  llvm.func @put(%p: !llvm.ptr, %w: i32) {
    llvm.store %w, %p : i32, !llvm.ptr loc("op6")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op6")
    llvm.call @put(%m, %five) : (!llvm.ptr, i32) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug:store-no-location
  llvm.func @put(%p: !llvm.ptr, %w: i32) {
    llvm.store %w, %p : i32, !llvm.ptr
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op6")
    llvm.call @put(%m, %five) : (!llvm.ptr, i32) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }
