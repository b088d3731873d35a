// Case 30 (exact semantics): an `scf.for` over i8 compares signed.
// From 100 to 100 + 100 step 100 in i8: the bound wraps to -56, so
// `100 < -56` is false and the body never runs.
// bug: the only destroy is in the body: the stream leaks.
// twin: the body destroys it and so does the code after the loop: once.
// On unbounded integers the body runs once: a false holds on the bug and a
// false double destroy on the twin.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %lb = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    %ub = llvm.add %lb, %lb : i8 loc("op2")
    %step = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    scf.for %i = %lb to %ub step %step : i8 {
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    } loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %lb = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    %ub = llvm.add %lb, %lb : i8 loc("op2")
    %step = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    scf.for %i = %lb to %ub step %step : i8 {
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    } loc("op2")
    llvm.return
  }
