// Case 36 (exact semantics): a store through a pointer derived from a slot.
// Stream %a is stored to a slot, then %b through `getelementptr %slot[0]`
// (or [0, 0] of a struct type): the same bytes, so the slot now holds %b.
// twin, twin:field: the value loaded back (%b) and %a each destroyed once.
// bug, bug:field: the loaded value and %b destroyed: %b twice, %a leaks.
// bug:dynamic: stored through `getelementptr %slot[%i]`, an index the
// analysis cannot read (for %i = 0 it is the bug above).
// Keeping the slot's old content (%a) makes the twins a false double
// destroy and the bugs a false holds.

// ---- source
func.func @main() {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1] loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main() {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %a, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %g = llvm.getelementptr %slot[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op2")
    llvm.store %b, %g : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- twin:field
  llvm.func @main() {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %a, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %g = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64)> loc("op2")
    llvm.store %b, %g : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %a, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %g = llvm.getelementptr %slot[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op2")
    llvm.store %b, %g : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug:field
  llvm.func @main() {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %a, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %g = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64)> loc("op2")
    llvm.store %b, %g : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug:dynamic
  llvm.func @main(%i: i64) {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %a, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %g = llvm.getelementptr %slot[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr loc("op2")
    llvm.store %b, %g : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
