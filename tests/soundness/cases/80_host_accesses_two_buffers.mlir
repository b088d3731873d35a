// Case 80 (selfcheck's class of case 72): host accesses of two buffers:
// only those of one buffer, one a write, must keep their order.  Source:
// write a[0], write b[0], read a[0], read b[0] (no gpu work but the two
// synchronous allocations).
// twin: the source order.
// twin:other-buffer: the writes swapped, and the reads (different buffers,
// or two reads): the same values.
// bug: the read of a above the write of a: it sees 0, the source's 5.
// bug:write-last: the write of b moved below the read of b.

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %a = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %b = gpu.alloc host_shared () : memref<4xi32> loc("op2")
  memref.store %c5, %a[%c0] : memref<4xi32> loc("op3")
  memref.store %c7, %b[%c0] : memref<4xi32> loc("op4")
  %x = memref.load %a[%c0] : memref<4xi32> loc("op5")
  %y = memref.load %b[%c0] : memref<4xi32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op3")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op4")
    llvm.store %five, %a : i32, !llvm.ptr loc("op3")
    llvm.store %seven, %b : i32, !llvm.ptr loc("op4")
    %x = llvm.load %a : !llvm.ptr -> i32 loc("op5")
    %y = llvm.load %b : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- twin:other-buffer
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op3")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op4")
    llvm.store %seven, %b : i32, !llvm.ptr loc("op4")
    llvm.store %five, %a : i32, !llvm.ptr loc("op3")
    %y = llvm.load %b : !llvm.ptr -> i32 loc("op6")
    %x = llvm.load %a : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op3")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op4")
    %x = llvm.load %a : !llvm.ptr -> i32 loc("op5")
    llvm.store %five, %a : i32, !llvm.ptr loc("op3")
    llvm.store %seven, %b : i32, !llvm.ptr loc("op4")
    %y = llvm.load %b : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:write-last
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %a = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op3")
    %seven = llvm.mlir.constant(7 : i32) : i32 loc("op4")
    llvm.store %five, %a : i32, !llvm.ptr loc("op3")
    %x = llvm.load %a : !llvm.ptr -> i32 loc("op5")
    %y = llvm.load %b : !llvm.ptr -> i32 loc("op6")
    llvm.store %seven, %b : i32, !llvm.ptr loc("op4")
    llvm.return
  }
