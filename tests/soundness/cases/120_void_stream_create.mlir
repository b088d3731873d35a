// Case 120 (issue 43): `mgpuStreamCreate` declared with a void result.
// Source: a host wait.
// twin: the usual declaration; create, synchronize, destroy.
// bug: declared and called void: the stream is made and no one holds it
// (a leak); the null stream synchronized instead.  Raised IndexError.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @mgpuStreamCreate()
  llvm.func @main() {
    llvm.call @mgpuStreamCreate() : () -> () loc("op1")
    %s = llvm.mlir.zero : !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
