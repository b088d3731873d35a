// Case 124 (issue 43): the stream in a global, destroyed by a helper that loads it.
// Source: a host wait.
// twin: @finish called once.  bug: twice (the second destroys it again).

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.mlir.global internal @slot() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @finish() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.call @finish() : () -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.mlir.global internal @slot() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @finish() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.call @finish() : () -> () loc("op2")
    llvm.call @finish() : () -> () loc("op2")
    llvm.return
  }
