// Case 125 (issue 43): a global overwritten before it is read back.
// Source: a host wait.
// twin: the stream stored, loaded back and destroyed.
// bug: null stored over it first: the null stream is destroyed, the
// stream leaks.

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
  llvm.func @main() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.mlir.global internal @slot() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @main() {
    %g = llvm.mlir.addressof @slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    llvm.store %z, %g : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
