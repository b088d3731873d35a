// Case 20 (extra): the stream created by a helper and returned through an
// out-parameter (the caller's alloca slot).
// twin: @make stores the new stream through %out; @main loads it back,
// synchronizes and destroys it once.
// bug: @main destroys the loaded stream twice.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @make(%out: !llvm.ptr) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %out : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.return
  }
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.call @make(%slot) : (!llvm.ptr) -> () loc("op1")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @make(%out: !llvm.ptr) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %out : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.return
  }
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.call @make(%slot) : (!llvm.ptr) -> () loc("op1")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
