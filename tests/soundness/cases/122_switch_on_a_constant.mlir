// Case 122 (issue 43): `llvm.switch` on a constant selector.
// Source: a host wait.
// twin: selector 1: the case that synchronizes and destroys.
// bug: selector 2: the case that only synchronizes (a leak); bug:default
// selector 3: the default, which does nothing.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(1 : i32) : i32
    llvm.switch %k : i32, ^skip [
      1: ^one,
      2: ^two
    ] loc("op2")
  ^one:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^two:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^skip:
    llvm.br ^out
  ^out:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(2 : i32) : i32
    llvm.switch %k : i32, ^skip [
      1: ^one,
      2: ^two
    ] loc("op2")
  ^one:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^two:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^skip:
    llvm.br ^out
  ^out:
    llvm.return
  }

// ---- bug:default
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i32) : i32
    llvm.switch %k : i32, ^skip [
      1: ^one,
      2: ^two
    ] loc("op2")
  ^one:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^two:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.br ^out
  ^skip:
    llvm.br ^out
  ^out:
    llvm.return
  }
