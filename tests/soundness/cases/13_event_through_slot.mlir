// Case 13: an event through memory.
// Source: `gpu.wait async [%t0]` on another stream's token: mlir-opt-19
// creates an event, records it on the first stream, makes the new stream
// wait for it and destroys it.
// twin: mlir-opt-19 --gpu-to-llvm's calls, with the event handle stored to an
// `llvm.alloca` slot and every use taking the value loaded back (the destroy
// too), plus the synchronize/destroy of the first stream mlir-opt-19 leaves
// out (its stream-no-leak finding).
// bug: the same with the mgpuEventDestroy removed: the event leaks.

// ---- source
func.func @main() {
  %t0 = gpu.wait async loc("op1")
  %t1 = gpu.wait async [%t0] loc("op2")
  gpu.wait [%t1] loc("op3")
  return
}

// ---- twin
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %1, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %e1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%e1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %e2) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %e3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op2")
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.store %1, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %e1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%e1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %e2) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
