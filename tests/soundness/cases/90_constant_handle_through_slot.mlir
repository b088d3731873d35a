// Case 90 (runtime-contract's handle kinds): an integer constant reaches a
// stream operand through an `llvm.alloca` slot.  `inttoptr 3` is no stream
// the runtime created (cuda: CUDA_ERROR_INVALID_HANDLE; the checking runtime
// records `invalid-handle`), wherever it was kept on the way.
// twin: the stream stored to the slot, loaded back and synchronized, then
// destroyed.
// bug: `inttoptr 3` stored to the slot, loaded back and synchronized (then
// the real stream synchronized and destroyed).
// bug:int: the i64 3 stored to an i64 slot, loaded back and turned into a
// pointer there.
// bug:overwritten: the stream stored, then `inttoptr 3` stored over it: the
// load sees the constant.
// (3, not 1: CUDA defines 1 as CU_STREAM_LEGACY, a stream; case 102.)

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.store %p, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:int
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x i64 : (i64) -> !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    llvm.store %k, %slot : i64, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> i64 loc("op2")
    %p = llvm.inttoptr %l : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:overwritten
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.store %p, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
