// Case 09: cf loop (back edge), 2 iterations.
// Source: scf.for 1..3 whose body creates a stream (gpu.wait async) and
// waits on it (gpu.wait).  (Bounds 1..3, not 0..2: the source reader drops
// `arith.constant 0`, whose xDSL IntegerAttr is falsy, and then refuses the
// loop; that is a reader bug, not what this case tests.)
// twin: mlir-opt-19 --pass-pipeline='builtin.module(convert-scf-to-cf,
// gpu-to-llvm)' output, verbatim: llvm.br/llvm.cond_br blocks with a back
// edge, the stream created and destroyed inside each iteration.
// bug: mgpuStreamCreate hoisted out of the loop (before the back edge): the
// one stream is synchronized after its destroy and destroyed again in the
// second iteration.

// ---- source
func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c1 to %c3 step %c1 {
    %t = gpu.wait async loc("op2")
    gpu.wait [%t] loc("op3")
  } loc("op1")
  return
}

// ---- twin
  llvm.func @main() {
    %0 = llvm.mlir.constant(1 : index) : i64
    %1 = llvm.mlir.constant(3 : index) : i64
    llvm.br ^bb1(%0 : i64) loc("op1")
  ^bb1(%2: i64):  // 2 preds: ^bb0, ^bb2
    %3 = llvm.icmp "slt" %2, %1 : i64 loc("op1")
    llvm.cond_br %3, ^bb2, ^bb3 loc("op1")
  ^bb2:  // pred: ^bb1
    %4 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%4) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%4) : (!llvm.ptr) -> () loc("op3")
    %5 = llvm.add %2, %0 : i64 loc("op1")
    llvm.br ^bb1(%5 : i64) loc("op1")
  ^bb3:  // pred: ^bb1
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %0 = llvm.mlir.constant(1 : index) : i64
    %1 = llvm.mlir.constant(3 : index) : i64
    %4 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")  // hoisted out of the loop
    llvm.br ^bb1(%0 : i64) loc("op1")
  ^bb1(%2: i64):  // 2 preds: ^bb0, ^bb2
    %3 = llvm.icmp "slt" %2, %1 : i64 loc("op1")
    llvm.cond_br %3, ^bb2, ^bb3 loc("op1")
  ^bb2:  // pred: ^bb1
    llvm.call @mgpuStreamSynchronize(%4) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%4) : (!llvm.ptr) -> () loc("op3")
    %5 = llvm.add %2, %0 : i64 loc("op1")
    llvm.br ^bb1(%5 : i64) loc("op1")
  ^bb3:  // pred: ^bb1
    llvm.return
  }
