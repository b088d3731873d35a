// Case 03: stream-no-use-after-destroy, handle through memory.
// The stream is stored to an `llvm.alloca` slot; the synchronize takes the
// value loaded back from the slot.
// twin: load + synchronize before the destroy.
// bug: the destroy comes first; the handle loaded back from the slot afterwards
// is the destroyed stream, and mgpuStreamSynchronize gets it.

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
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
