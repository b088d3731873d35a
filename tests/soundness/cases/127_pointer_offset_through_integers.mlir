// Case 127 (issue 43): a getelementptr offset taken through integers.
// Source: a host wait.
// twin: offset 0: the stream itself.  bug: offset 8: not the stream (leak).

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %p = llvm.getelementptr %s[0] : (!llvm.ptr) -> !llvm.ptr, i8 loc("op2")
    %i = llvm.ptrtoint %p : !llvm.ptr to i64 loc("op2")
    %q = llvm.inttoptr %i : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%q) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %p = llvm.getelementptr %s[8] : (!llvm.ptr) -> !llvm.ptr, i8 loc("op2")
    %i = llvm.ptrtoint %p : !llvm.ptr to i64 loc("op2")
    %q = llvm.inttoptr %i : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%q) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
