// Case 11: double destroy on one path only (llvm.cond_br diamond).
// Source: one stream, a host wait on it in each branch of scf.if %c.
// twin: mlir-opt-19 --pass-pipeline='builtin.module(convert-scf-to-cf,
// gpu-to-llvm)' output, verbatim: each branch synchronizes and destroys once.
// bug: the %c-true branch destroys the stream twice.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  scf.if %c {
    gpu.wait [%t] loc("op3")
  } else {
    gpu.wait [%t] loc("op4")
  } loc("op2")
  return
}

// ---- twin
  llvm.func @main(%arg0: i1) {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.cond_br %arg0, ^bb1, ^bb2 loc("op2")
  ^bb1:  // pred: ^bb0
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.br ^bb3 loc("op2")
  ^bb2:  // pred: ^bb0
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op4")
    llvm.br ^bb3 loc("op2")
  ^bb3:  // 2 preds: ^bb1, ^bb2
    llvm.return
  }

// ---- bug
  llvm.func @main(%arg0: i1) {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.cond_br %arg0, ^bb1, ^bb2 loc("op2")
  ^bb1:  // pred: ^bb0
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // destroyed again
    llvm.br ^bb3 loc("op2")
  ^bb2:  // pred: ^bb0
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op4")
    llvm.br ^bb3 loc("op2")
  ^bb3:  // 2 preds: ^bb1, ^bb2
    llvm.return
  }
