// Case 04: stream-no-leak, destroy through memory.
// twin: the stream is stored to an `llvm.alloca` slot and the value loaded
// back is synchronized and destroyed: exactly one destroy, so `holds`
// (an analysis that does not see through the slot calls it a leak).
// bug: stored, loaded and synchronized, never destroyed.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
