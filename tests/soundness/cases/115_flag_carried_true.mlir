// Case 115 (issue 43): a flag carried unchanged through 40 rounds guards the destroy.
// Source: a host wait.
// twin: the flag starts true and each round passes it on (`and %flag, true`).
// bug: each round clears it (`and %flag, false`): after the loop the destroy
// is skipped and the stream leaks.

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
    %one = llvm.mlir.constant(1 : i32) : i32
    %bound = llvm.mlir.constant(40 : i32) : i32
    %true = llvm.mlir.constant(true) : i1
    llvm.br ^head(%zero, %true : i32, i1)
  ^head(%i: i32, %flag: i1):
    %go = llvm.icmp "slt" %i, %bound : i32
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.cond_br %flag, ^sync, ^next
  ^sync:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^next
  ^next:
    %i2 = llvm.add %i, %one : i32
    %k = llvm.mlir.constant(true) : i1
    %flag2 = llvm.and %flag, %k : i1
    llvm.br ^head(%i2, %flag2 : i32, i1)
  ^exit:
    llvm.cond_br %flag, ^done, ^out
  ^done:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^out:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %zero = llvm.mlir.constant(0 : i32) : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %bound = llvm.mlir.constant(40 : i32) : i32
    %true = llvm.mlir.constant(true) : i1
    llvm.br ^head(%zero, %true : i32, i1)
  ^head(%i: i32, %flag: i1):
    %go = llvm.icmp "slt" %i, %bound : i32
    llvm.cond_br %go, ^body, ^exit
  ^body:
    llvm.cond_br %flag, ^sync, ^next
  ^sync:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^next
  ^next:
    %i2 = llvm.add %i, %one : i32
    %k = llvm.mlir.constant(false) : i1
    %flag2 = llvm.and %flag, %k : i1
    llvm.br ^head(%i2, %flag2 : i32, i1)
  ^exit:
    llvm.cond_br %flag, ^done, ^out
  ^done:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^out:
    llvm.return
  }
