// Case 23 (extra): the stream kept in a module global.
// twin: stored to an internal `llvm.mlir.global` (its address never leaves
// the module), loaded back, synchronized and destroyed once.
// bug: loaded back and destroyed twice (two loads of the same global with
// only runtime calls between them: the same stream).

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.mlir.global internal @stream_slot() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @main() {
    %g = llvm.mlir.addressof @stream_slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.mlir.global internal @stream_slot() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @main() {
    %g = llvm.mlir.addressof @stream_slot : !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %g : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    %l2 = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamDestroy(%l2) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
