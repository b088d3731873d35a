// Case 28 (exact semantics): i8 arithmetic wraps around.
// 127 + 1 in i8 is -128, so `icmp slt %sum, 0` is true: the `then` block runs.
// bug: that block destroys the stream twice (the other destroys it once).
// twin: that block destroys it once (the other, dead, twice).
// An analysis on unbounded integers takes 128 < 0 as false: a false holds
// on the bug, a false violation on the twin.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %max = llvm.mlir.constant(127 : i8) : i8 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %sum = llvm.add %max, %one : i8 loc("op2")
    %neg = llvm.icmp "slt" %sum, %zero : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %neg, ^once, ^twice loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %max = llvm.mlir.constant(127 : i8) : i8 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %sum = llvm.add %max, %one : i8 loc("op2")
    %neg = llvm.icmp "slt" %sum, %zero : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %neg, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
