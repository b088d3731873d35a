// Case 97 (selfcheck, handle-like constants): a constant chosen by a cf
// loop's block argument.  Found by `gpu-alloc-verify selfcheck` (operator
// handle-constant-use inside an scf-to-cf loop body).  The loop header
// carries a pointer %q each iteration synchronizes before its own stream:
// the null stream (cuda's default stream, which a synchronize takes) is
// fine; `inttoptr 3` is no stream, whichever edge brings it (3, not 1:
// CUDA defines 1 as CU_STREAM_LEGACY, a stream; case 102).  Only the
// unrolled iteration the constant reaches is wrong, so the check must
// follow the back edge's value, not just the entry's.
// Source: scf.for 1..3 whose body creates a stream and waits on it (case
// 09's).
// twin: case 09's real scf-to-cf shape, plus %q: null on both edges.
// bug: the back edge passes `inttoptr 3` (iteration 2 synchronizes it).
// bug:entry: the entry edge passes `inttoptr 3`, the back edge the null
// stream (iteration 1 synchronizes it).

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
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    llvm.br ^bb1(%0, %z : i64, !llvm.ptr) loc("op1")
  ^bb1(%2: i64, %q: !llvm.ptr):
    %3 = llvm.icmp "slt" %2, %1 : i64 loc("op1")
    llvm.cond_br %3, ^bb2, ^bb3 loc("op1")
  ^bb2:
    %4 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%4) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%4) : (!llvm.ptr) -> () loc("op3")
    %5 = llvm.add %2, %0 : i64 loc("op1")
    llvm.br ^bb1(%5, %z : i64, !llvm.ptr) loc("op1")
  ^bb3:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %0 = llvm.mlir.constant(1 : index) : i64
    %1 = llvm.mlir.constant(3 : index) : i64
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op1")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op1")
    llvm.br ^bb1(%0, %z : i64, !llvm.ptr) loc("op1")
  ^bb1(%2: i64, %q: !llvm.ptr):
    %3 = llvm.icmp "slt" %2, %1 : i64 loc("op1")
    llvm.cond_br %3, ^bb2, ^bb3 loc("op1")
  ^bb2:
    %4 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%4) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%4) : (!llvm.ptr) -> () loc("op3")
    %5 = llvm.add %2, %0 : i64 loc("op1")
    llvm.br ^bb1(%5, %bad : i64, !llvm.ptr) loc("op1")
  ^bb3:
    llvm.return
  }

// ---- bug:entry
  llvm.func @main() {
    %0 = llvm.mlir.constant(1 : index) : i64
    %1 = llvm.mlir.constant(3 : index) : i64
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op1")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op1")
    llvm.br ^bb1(%0, %bad : i64, !llvm.ptr) loc("op1")
  ^bb1(%2: i64, %q: !llvm.ptr):
    %3 = llvm.icmp "slt" %2, %1 : i64 loc("op1")
    llvm.cond_br %3, ^bb2, ^bb3 loc("op1")
  ^bb2:
    %4 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%q) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%4) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%4) : (!llvm.ptr) -> () loc("op3")
    %5 = llvm.add %2, %0 : i64 loc("op1")
    llvm.br ^bb1(%5, %z : i64, !llvm.ptr) loc("op1")
  ^bb3:
    llvm.return
  }
