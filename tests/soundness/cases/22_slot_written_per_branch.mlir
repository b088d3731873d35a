// Case 22 (extra): a slot written on each branch, read after the merge (the
// memory twin of case 08).
// Source: case 08's (two streams, one host wait on both).
// twin: the slot gets s1 when %c, s2 otherwise; after the merge the loaded
// value and `select %c, s2, s1` are each synchronized and destroyed once.
// bug: after the merge the loaded value is destroyed, then s2: when %c is
// false s2 is used after its destroy and destroyed twice (s1 leaks).

// ---- source
func.func @main(%c: i1) {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1, %t2] loc("op3")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.cond_br %c, ^first, ^second loc("op3")
  ^first:
    llvm.store %s1, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    llvm.br ^merge loc("op3")
  ^second:
    llvm.store %s2, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    llvm.br ^merge loc("op3")
  ^merge:
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op3")
    %other = llvm.select %c, %s2, %s1 : i1, !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%other) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%other) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.cond_br %c, ^first, ^second loc("op3")
  ^first:
    llvm.store %s1, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    llvm.br ^merge loc("op3")
  ^second:
    llvm.store %s2, %slot : !llvm.ptr, !llvm.ptr loc("op3")
    llvm.br ^merge loc("op3")
  ^merge:
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
