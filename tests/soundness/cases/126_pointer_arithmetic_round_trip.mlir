// Case 126 (issue 43): the stream through ptrtoint, add, sub and inttoptr.
// Source: a host wait.
// twin: + 256 - 256: the same pointer, destroyed.
// bug: + 256 - 128: another address, no stream: the stream leaks.

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
    %k = llvm.mlir.constant(256 : i64) : i64
    %m = llvm.mlir.constant(256 : i64) : i64
    %j = llvm.add %i, %k : i64 loc("op2")
    %h = llvm.sub %j, %m : i64 loc("op2")
    %p = llvm.inttoptr %h : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %i = llvm.ptrtoint %s : !llvm.ptr to i64 loc("op2")
    %k = llvm.mlir.constant(256 : i64) : i64
    %m = llvm.mlir.constant(128 : i64) : i64
    %j = llvm.add %i, %k : i64 loc("op2")
    %h = llvm.sub %j, %m : i64 loc("op2")
    %p = llvm.inttoptr %h : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
