// Case 18 (extra): llvm.switch instead of llvm.cond_br.
// Source: case 11's (a host wait in each branch of scf.if %c).
// twin: `llvm.switch (zext %c)` with cases 1 and 0 each synchronizing and
// destroying once; the default destination (unreachable: the value is 0 or 1)
// goes to the exit without a destroy.
// bug: case 1 destroys twice.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  scf.if %c {
    gpu.wait [%t] loc("op3")
  } else {
    gpu.wait [%t] loc("op4")
  } loc("op2")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.zext %c : i1 to i32 loc("op2")
    llvm.switch %x : i32, ^exit [
      1: ^then,
      0: ^else
    ] loc("op2")
  ^then:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.br ^exit loc("op2")
  ^else:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.br ^exit loc("op2")
  ^exit:
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.zext %c : i1 to i32 loc("op2")
    llvm.switch %x : i32, ^exit [
      1: ^then,
      0: ^else
    ] loc("op2")
  ^then:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op3")
    llvm.br ^exit loc("op2")
  ^else:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.br ^exit loc("op2")
  ^exit:
    llvm.return
  }
