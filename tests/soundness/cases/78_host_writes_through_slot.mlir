// Case 78 (selfcheck's class of case 72): two host writes of one element,
// the buffer pointer through an llvm.alloca slot.  Source as case 72 (write
// 2.0, then 1.0).
// twin: both writes through the pointer loaded from the slot, in order.
// twin:mixed: the first write through the buffer, the second through the
// slot.
// bug: the writes through the slot swapped: the element ends 2.0.
// bug:mixed: the write through the slot above the direct one.

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
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %buf, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.store %two, %q : f32, !llvm.ptr loc("op5")
    llvm.store %one, %q : f32, !llvm.ptr loc("op6")
    llvm.return
  }

// ---- twin:mixed
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %buf, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.store %two, %buf : f32, !llvm.ptr loc("op5")
    llvm.store %one, %q : f32, !llvm.ptr loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %buf, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.store %one, %q : f32, !llvm.ptr loc("op6")
    llvm.store %two, %q : f32, !llvm.ptr loc("op5")
    llvm.return
  }

// ---- bug:mixed
  llvm.func @main() {
    %c0 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32 loc("op1")
    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32 loc("op1")
    %n = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %bytes = llvm.mlir.constant(64 : i64) : i64 loc("op1")
    %flag = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %buf = llvm.call @mgpuMemAlloc(%bytes, %z, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.store %buf, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %bits = llvm.bitcast %one : f32 to i32 loc("op3")
    llvm.call @mgpuMemset32(%buf, %bits, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %q = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.store %one, %q : f32, !llvm.ptr loc("op6")
    llvm.store %two, %buf : f32, !llvm.ptr loc("op5")
    llvm.return
  }
