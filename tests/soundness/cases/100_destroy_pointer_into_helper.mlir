// Case 100 (selfcheck, function pointers): the runtime calls made by a
// helper through a function pointer its caller passes.  Found by `gpu-
// alloc-verify selfcheck` (operator indirect-call: a runtime call made
// through `llvm.mlir.addressof` + an indirect call), here one step further:
// the `llvm.mlir.addressof` is in main, the indirect call in @apply, so the
// callee is known only once @apply is inlined with its argument.  Case 17
// has the pointer and the call side by side.
// Source: one stream, waited on.
// twin: @apply(addressof @mgpuStreamSynchronize, %s), then
// @apply(addressof @mgpuStreamDestroy, %s).
// bug: the two pointers given in the other order: the stream is
// synchronized after its destroy.
// bug:select: the first pointer is select %c, destroy, synchronize: where
// %c holds, the stream is destroyed twice.
// bug:release: @release takes the destroy's address itself and calls it;
// main calls @release, then @apply synchronizes the stream: a use after
// its destroy.

// ---- source
func.func @main(%c: i1) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @apply(%f: !llvm.ptr, %s: !llvm.ptr) {
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sync = llvm.mlir.addressof @mgpuStreamSynchronize : !llvm.ptr loc("op2")
    %destroy = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    llvm.call @apply(%sync, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @apply(%destroy, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @apply(%f: !llvm.ptr, %s: !llvm.ptr) {
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sync = llvm.mlir.addressof @mgpuStreamSynchronize : !llvm.ptr loc("op2")
    %destroy = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    llvm.call @apply(%destroy, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @apply(%sync, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:select
  llvm.func @apply(%f: !llvm.ptr, %s: !llvm.ptr) {
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sync = llvm.mlir.addressof @mgpuStreamSynchronize : !llvm.ptr loc("op2")
    %destroy = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    %first = llvm.select %c, %destroy, %sync : i1, !llvm.ptr loc("op2")
    llvm.call @apply(%first, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @apply(%destroy, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:release
  llvm.func @apply(%f: !llvm.ptr, %s: !llvm.ptr) {
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @release(%s: !llvm.ptr) {
    %destroy = llvm.mlir.addressof @mgpuStreamDestroy : !llvm.ptr loc("op2")
    llvm.call %destroy(%s) : !llvm.ptr, (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sync = llvm.mlir.addressof @mgpuStreamSynchronize : !llvm.ptr loc("op2")
    llvm.call @release(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @apply(%sync, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.return
  }
