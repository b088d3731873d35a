// Case 32 (exact semantics): `ptrtoint` to i32 loses the pointer's high bits.
// bug: the stream goes through i32 and back: the pointer destroyed is not
// the stream, which leaks (an analysis whose casts pass values through
// finds it destroyed once).
// twin: the same round trip through i64 gives the stream back: destroyed once.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %i = llvm.ptrtoint %s : !llvm.ptr to i64 loc("op2")
    %p = llvm.inttoptr %i : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %i = llvm.ptrtoint %s : !llvm.ptr to i32 loc("op2")
    %p = llvm.inttoptr %i : i32 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
