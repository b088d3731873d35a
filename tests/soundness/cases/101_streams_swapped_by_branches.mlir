// Case 101 (selfcheck, block arguments): two streams passed to a merge
// block in an order chosen by a branch, or swapped twice, then one of them
// destroyed twice.  Found by `gpu-alloc-verify selfcheck` (operator
// block-arg-swap: `llvm.br ^m(%b, %a)` to a new block `^m(%x, %y)`, later
// uses of %a reading %y and of %b reading %x).  Case 34 swaps once, around
// a loop; here the swap happens on one branch only (so which stream %x is
// depends on %c), or twice in a row (so %x is %a again).
// Source: two streams, each waited on.
// twin: cond_br %c, ^m(%a, %b), ^m(%b, %a); %x and %y each synchronized
// and destroyed.
// bug: %x and %a destroyed: where %c holds %x is %a, destroyed twice, and
// %b leaks; where it does not, both once.
// bug:twice: ^m1(%b, %a) then ^m2(%y1, %x1): %x2 is %a again; %x2 and %a
// destroyed.

// ---- source
func.func @main(%c: i1) {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1] loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main(%c: i1) {
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.cond_br %c, ^m(%a, %b : !llvm.ptr, !llvm.ptr), ^m(%b, %a : !llvm.ptr, !llvm.ptr) loc("op3")
  ^m(%x: !llvm.ptr, %y: !llvm.ptr):
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%y) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%y) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug
  llvm.func @main(%c: i1) {
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.cond_br %c, ^m(%a, %b : !llvm.ptr, !llvm.ptr), ^m(%b, %a : !llvm.ptr, !llvm.ptr) loc("op3")
  ^m(%x: !llvm.ptr, %y: !llvm.ptr):
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:twice
  llvm.func @main(%c: i1) {
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.br ^m1(%b, %a : !llvm.ptr, !llvm.ptr) loc("op3")
  ^m1(%x1: !llvm.ptr, %y1: !llvm.ptr):
    llvm.br ^m2(%y1, %x1 : !llvm.ptr, !llvm.ptr) loc("op3")
  ^m2(%x2: !llvm.ptr, %y2: !llvm.ptr):
    llvm.call @mgpuStreamSynchronize(%x2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
