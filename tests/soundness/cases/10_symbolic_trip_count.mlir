// Case 10: a loop whose trip count is a function argument (symbolic).
// Source: one stream, one host wait; @main takes an index %n the lowered
// code loops on.
// bug / bug:cf: the loop body (scf.for, or llvm.br/llvm.cond_br blocks with a
// back edge) synchronizes and destroys a stream created before the loop:
// leaked when %n <= 0, destroyed twice when %n >= 2. No loop bound decides
// it for every %n: must not be `holds`.
// twin / twin:cf: the loop body only synchronizes; the destroy follows the
// loop (correct for every %n; `unknown` is acceptable past the loop bound).

// ---- source
func.func @main(%n: index) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main(%n: i64) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    scf.for %i = %c0 to %n step %c1 : i64 {
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    } loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- twin:cf
  llvm.func @main(%n: i64) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    llvm.br ^head(%c0 : i64) loc("op2")
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %n : i64 loc("op2")
    llvm.cond_br %more, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^head(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main(%n: i64) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    scf.for %i = %c0 to %n step %c1 : i64 {
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    } loc("op2")
    llvm.return
  }

// ---- bug:cf
  llvm.func @main(%n: i64) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    llvm.br ^head(%c0 : i64) loc("op2")
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %n : i64 loc("op2")
    llvm.cond_br %more, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^head(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }
