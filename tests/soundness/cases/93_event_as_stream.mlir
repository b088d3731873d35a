// Case 93 (runtime-contract's handle kinds): an event handle where a stream
// is expected (the checking runtime records `invalid-handle`, as CUDA
// refuses it).  Operands are judged by role: mgpuEventRecord is (event,
// stream), mgpuStreamWaitEvent (stream, event).
// Source: `gpu.wait async [%t0]` on another stream's token.
// twin: as case 92's (mlir-opt-19's calls plus the first stream's
// synchronize/destroy).
// bug: the second stream's synchronize given the event (before the event
// is destroyed).
// bug:record: mgpuEventRecord's operands swapped: (stream, event).
// bug:wait: mgpuStreamWaitEvent's operands swapped: (event, stream).

// ---- source
func.func @main() {
  %t0 = gpu.wait async loc("op1")
  %t1 = gpu.wait async [%t0] loc("op2")
  gpu.wait [%t1] loc("op3")
  return
}

// ---- twin
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug:record
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%0, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug:wait
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%1, %2) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

