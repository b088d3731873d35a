// Case 29 (exact semantics): integers are signless; `ult` reads them unsigned.
// -1 as an i64 is 2^64 - 1, so `icmp ult %zero, %minus1` is true, and
// `arith.cmpi ult %c5, %c250` on i8 (250 is -6 signed) is true as well.
// bug: the true branch destroys the stream twice (arith.cmpi in bug:cmpi).
// twin: the true branch destroys it once, the dead one twice.  An analysis
// that cannot read an unsigned compare must explore both branches: a false
// violation on the twin; one that reads it signed takes the wrong branch.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %m1 = llvm.mlir.constant(-1 : i64) : i64 loc("op2")
    %lt = llvm.icmp "ult" %zero, %m1 : i64 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %lt, ^once, ^twice loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- twin:cmpi
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c5 = arith.constant 5 : i8 loc("op2")
    %c250 = arith.constant 250 : i8 loc("op2")
    %lt = arith.cmpi ult, %c5, %c250 : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %lt, ^once, ^twice loc("op2")
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
    %zero = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %m1 = llvm.mlir.constant(-1 : i64) : i64 loc("op2")
    %lt = llvm.icmp "ult" %zero, %m1 : i64 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %lt, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:cmpi
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c5 = arith.constant 5 : i8 loc("op2")
    %c250 = arith.constant 250 : i8 loc("op2")
    %lt = arith.cmpi ult, %c5, %c250 : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %lt, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
