// Case 08: llvm.select between two streams.
// Source: two streams, one host wait on both (mlir-opt-19 synchronizes and
// destroys each).
// twin: %sel = select %c, s1, s2 and %other = select %c, s2, s1; each
// synchronized and destroyed once: both streams destroyed exactly once on
// both paths.
// bug: %sel destroyed, then s2 used and destroyed: when %c is false %sel is
// s2, so s2 is synchronized after its destroy and destroyed twice (and s1
// leaks).

// ---- source
func.func @main(%c: i1) {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1, %t2] loc("op3")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %s1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %sel = llvm.select %c, %s1, %s2 : i1, !llvm.ptr loc("op3")
    %other = llvm.select %c, %s2, %s1 : i1, !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%sel) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%sel) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%other) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%other) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %s1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %sel = llvm.select %c, %s1, %s2 : i1, !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%sel) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%sel) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
