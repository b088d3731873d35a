// Case 17 (extra): the destroy called through a function pointer.
// twin: `llvm.call %f(%s)` with %f = llvm.mlir.addressof @mgpuStreamDestroy:
// the stream is destroyed exactly once; an analysis that ignores indirect
// calls must say `unknown`, not "destroyed 0 times".
// bug: destroyed directly and then once more through the pointer.

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
    %f = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %f = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
