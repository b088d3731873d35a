// Case 24 (extra): a constant-trip loop longer than the unrolling bound,
// whose destroys happen only in its late iterations.
// The loop runs 6 times (0..6); its body destroys the stream created before
// it only when the counter is >= 4 (twin: only when it is 5).
// twin: destroyed exactly once, in iteration 5: `unknown` is acceptable (the
// destroy lies past the bound), `violated` is not.
// bug: destroyed in iterations 4 and 5, a double destroy past the bound:
// never `holds`.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c6 = llvm.mlir.constant(6 : i64) : i64 loc("op2")
    %late = llvm.mlir.constant(5 : i64) : i64 loc("op2")
    llvm.br ^head(%c0 : i64) loc("op2")
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %c6 : i64 loc("op2")
    llvm.cond_br %more, ^body, ^exit loc("op2")
  ^body:
    %now = llvm.icmp "sge" %i, %late : i64 loc("op2")
    llvm.cond_br %now, ^destroy, ^next loc("op2")
  ^destroy:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^next loc("op2")
  ^next:
    %i1 = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^head(%i1 : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c6 = llvm.mlir.constant(6 : i64) : i64 loc("op2")
    %late = llvm.mlir.constant(4 : i64) : i64 loc("op2")
    llvm.br ^head(%c0 : i64) loc("op2")
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %c6 : i64 loc("op2")
    llvm.cond_br %more, ^body, ^exit loc("op2")
  ^body:
    %now = llvm.icmp "sge" %i, %late : i64 loc("op2")
    llvm.cond_br %now, ^destroy, ^next loc("op2")
  ^destroy:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^next loc("op2")
  ^next:
    %i1 = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^head(%i1 : i64) loc("op2")
  ^exit:
    llvm.return
  }
