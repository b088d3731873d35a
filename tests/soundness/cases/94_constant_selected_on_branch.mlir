// Case 94 (runtime-contract's handle kinds): a constant chosen on one branch
// of %c only.  The null stream is a stream the cuda profile takes in a
// synchronize (its default stream); `inttoptr 7` is not (7, not 1: CUDA
// defines 1 as CU_STREAM_LEGACY, a stream; case 102).  So the operand is
// a handle on one path and an invalid one on the other: a violation where
// %c is false.
// twin: select %c, the stream, the null stream (llvm.mlir.zero): both fine
// on cuda.
// bug: select %c, the stream, `inttoptr 7`.
// bug:cond_br: the same chosen by llvm.cond_br, as a block argument.
// bug:event: an event synchronize of select %c, the event, `inttoptr 3`.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op2")
    %p = llvm.select %c, %s, %z : i1, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(7 : i64) : i64 loc("op2")
    %seven = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    %p = llvm.select %c, %s, %seven : i1, !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:cond_br
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(7 : i64) : i64 loc("op2")
    %seven = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.cond_br %c, ^bb1(%s : !llvm.ptr), ^bb1(%seven : !llvm.ptr) loc("op2")
  ^bb1(%p: !llvm.ptr):
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:event
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %three = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    %p = llvm.select %c, %e, %three : i1, !llvm.ptr loc("op2")
    llvm.call @mgpuEventSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
