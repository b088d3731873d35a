// Case 34 (exact semantics): block arguments are assigned in parallel.
// A one-iteration loop passes (%b, %a) back to ^head(%a, %b): after it
// %a is the second stream and %b the first.
// twin: %a and %b each synchronized and destroyed: each stream once.
// bug: %b (the first stream) and %a0 (the first stream again) destroyed:
// the first twice, the second leaks.  Assigning %a before reading it for
// %b makes both the second stream: a false holds on the bug, a false
// double destroy on the twin.

// ---- source
func.func @main() {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1] loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main() {
    %a0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op3")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    llvm.br ^head(%a0, %b0, %c0 : !llvm.ptr, !llvm.ptr, i64) loc("op3")
  ^head(%a: !llvm.ptr, %b: !llvm.ptr, %i: i64):
    %more = llvm.icmp "slt" %i, %c1 : i64 loc("op3")
    llvm.cond_br %more, ^body, ^exit loc("op3")
  ^body:
    %n = llvm.add %i, %c1 : i64 loc("op3")
    llvm.br ^head(%b, %a, %n : !llvm.ptr, !llvm.ptr, i64) loc("op3")
  ^exit:
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %a0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op3")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op3")
    llvm.br ^head(%a0, %b0, %c0 : !llvm.ptr, !llvm.ptr, i64) loc("op3")
  ^head(%a: !llvm.ptr, %b: !llvm.ptr, %i: i64):
    %more = llvm.icmp "slt" %i, %c1 : i64 loc("op3")
    llvm.cond_br %more, ^body, ^exit loc("op3")
  ^body:
    %n = llvm.add %i, %c1 : i64 loc("op3")
    llvm.br ^head(%b, %a, %n : !llvm.ptr, !llvm.ptr, i64) loc("op3")
  ^exit:
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%b0) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%a0) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
