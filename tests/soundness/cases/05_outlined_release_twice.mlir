// Case 05: stream-no-use-after-destroy through an outlined helper.
// @release synchronizes and destroys the stream it is given.
// twin: @release called once.
// bug: @release called twice on the same stream: the second call synchronizes
// a destroyed stream and destroys it again.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @release(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @release(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @release(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @release(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @release(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
