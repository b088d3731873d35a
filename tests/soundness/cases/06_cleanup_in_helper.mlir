// Case 06: stream-no-leak, destroy in another function.
// The stream is created in @main and synchronized and destroyed by @cleanup,
// which @main calls.
// twin: @cleanup called unconditionally.
// bug: the call to @cleanup sits on one branch of the i1 argument only: the
// stream leaks when %c is false.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @cleanup(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @cleanup(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @cleanup(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.cond_br %c, ^clean, ^done
  ^clean:
    llvm.call @cleanup(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^done
  ^done:
    llvm.return
  }
