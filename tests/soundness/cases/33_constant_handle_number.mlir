// Case 33 (exact semantics): a handle is a value of its own kind.
// 1099511627777 was the analysis's number for the first handle it made
// (2^40 + 1).  An integer constant equal to it, turned into a pointer, is
// still not the stream.
// bug: that pointer is destroyed, not the stream: the stream leaks.
// twin: the stream is destroyed twice only if that pointer equals it (never).

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1099511627777 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    %same = llvm.icmp "eq" %p, %s : !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %same, ^again, ^done loc("op2")
  ^again:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^done:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1099511627777 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
