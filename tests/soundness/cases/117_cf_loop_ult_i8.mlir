// Case 117 (issue 43): a cf loop over i8 compared `ult` to 200.
// Source: a host wait.
// twin: two rounds (0, 100) synchronize; the destroy after the loop.
// bug: the destroy inside the body: destroyed twice.  A signed reading of
// the bound (-56) runs no round.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i8) : i8
    %bound = llvm.mlir.constant(-56 : i8) : i8
    %step = llvm.mlir.constant(100 : i8) : i8
    llvm.br ^head(%zero : i8)
  ^head(%i: i8):
    %go = llvm.icmp "ult" %i, %bound : i8
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %step : i8
    llvm.br ^head(%next : i8)
  ^exit:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i8) : i8
    %bound = llvm.mlir.constant(-56 : i8) : i8
    %step = llvm.mlir.constant(100 : i8) : i8
    llvm.br ^head(%zero : i8)
  ^head(%i: i8):
    %go = llvm.icmp "ult" %i, %bound : i8
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %step : i8
    llvm.br ^head(%next : i8)
  ^exit:
    llvm.return
  }
