// Case 92 (runtime-contract's handle kinds): a stream handle where an event
// is expected.  The checking runtime (and CUDA: CUDA_ERROR_INVALID_HANDLE)
// refuses a stream given as an event, whichever call and operand: an
// operand is judged by its role (`runtime_api.SIGNATURES`), not its type
// (both are `!llvm.ptr`).
// Source: `gpu.wait async [%t0]` on another stream's token.
// twin: mlir-opt-19 --gpu-to-llvm's calls (event created, recorded on the
// first stream, waited on by the second, destroyed), plus the synchronize/
// destroy of the first stream mlir-opt-19 leaves out.
// bug: mgpuStreamWaitEvent's event operand is the first stream.
// bug:sync: the wait replaced by mgpuEventSynchronize of the first stream.
// bug:destroy: mgpuEventDestroy given the first stream (before its own
// synchronize and destroy).

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
    llvm.call @mgpuStreamWaitEvent(%2, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug:sync
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventSynchronize(%0) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

// ---- bug:destroy
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%0) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")  // hand-added
    llvm.return
  }

