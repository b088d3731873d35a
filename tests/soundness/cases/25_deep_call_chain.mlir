// Case 25 (extra): a chain of helpers deeper than the inlining bound.
// @main -> @h1 -> @h2 -> @h3 -> @h4 -> @h5 -> @h6, each passing the stream on;
// @h6 synchronizes and destroys it.
// twin: destroyed once at the bottom: `unknown` acceptable, `violated` not.
// bug: @h6 destroys it twice: never `holds`.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @h6(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h5(%s: !llvm.ptr) {
    llvm.call @h6(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h4(%s: !llvm.ptr) {
    llvm.call @h5(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h3(%s: !llvm.ptr) {
    llvm.call @h4(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h2(%s: !llvm.ptr) {
    llvm.call @h3(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h1(%s: !llvm.ptr) {
    llvm.call @h2(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @h1(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @h6(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h5(%s: !llvm.ptr) {
    llvm.call @h6(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h4(%s: !llvm.ptr) {
    llvm.call @h5(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h3(%s: !llvm.ptr) {
    llvm.call @h4(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h2(%s: !llvm.ptr) {
    llvm.call @h3(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @h1(%s: !llvm.ptr) {
    llvm.call @h2(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @h1(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
