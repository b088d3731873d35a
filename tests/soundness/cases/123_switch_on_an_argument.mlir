// Case 123 (issue 43): `llvm.switch (zext %c)`, the default unreachable.
// Source: a host wait (and an unused i1 argument).
// twin: both cases synchronize and destroy.
// bug: case 1 only synchronizes: a leak where %c is true.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.zext %c : i1 to i32 loc("op2")
    llvm.switch %x : i32, ^out [
      0: ^full,
      1: ^full
    ] loc("op2")
  ^full:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^half:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^out:
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.zext %c : i1 to i32 loc("op2")
    llvm.switch %x : i32, ^out [
      0: ^full,
      1: ^half
    ] loc("op2")
  ^full:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^half:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^out:
    llvm.return
  }
