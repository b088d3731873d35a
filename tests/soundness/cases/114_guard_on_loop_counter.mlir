// Case 114 (issue 43): a guard on a loop-carried value's last value.
// Source: a host wait on one stream.
// twin: a cf loop of 100 rounds synchronizes the stream; after it the
// destroy is guarded by `%i sge 100`, true when the loop exits.
// bug: the guard is `%i sgt 100`, false at the exit: the stream leaks.
// A summary that treats %i at the exit as free takes either branch.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i32) : i32
    %bound = llvm.mlir.constant(100 : i32) : i32
    %step = llvm.mlir.constant(1 : i32) : i32
    llvm.br ^head(%zero : i32)
  ^head(%i: i32):
    %go = llvm.icmp "slt" %i, %bound : i32
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %step : i32
    llvm.br ^head(%next : i32)
  ^exit:
    %last = llvm.icmp "sge" %i, %bound : i32
    llvm.cond_br %last, ^done, ^skip
  ^done:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^skip
  ^skip:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i32) : i32
    %bound = llvm.mlir.constant(100 : i32) : i32
    %step = llvm.mlir.constant(1 : i32) : i32
    llvm.br ^head(%zero : i32)
  ^head(%i: i32):
    %go = llvm.icmp "slt" %i, %bound : i32
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    %next = llvm.add %i, %step : i32
    llvm.br ^head(%next : i32)
  ^exit:
    %last = llvm.icmp "sgt" %i, %bound : i32
    llvm.cond_br %last, ^done, ^skip
  ^done:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^skip
  ^skip:
    llvm.return
  }
