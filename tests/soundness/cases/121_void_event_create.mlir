// Case 121 (issue 43): `mgpuEventCreate` declared with a void result.
// Source: a wait async on a token (mlir-opt-19: an event between streams).
// twin: 19's shape, the event destroyed after the wait.
// bug: the event created void (never held, never destroyed: a leak); the
// host synchronizes %s instead of waiting on the event.

// ---- source
func.func @main() {
  %t0 = gpu.wait async loc("op1")
  %t1 = gpu.wait async [%t0] loc("op2")
  gpu.wait [%t1] loc("op3")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamWaitEvent(%s2, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug
  llvm.func @mgpuEventCreate()
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventCreate() : () -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
