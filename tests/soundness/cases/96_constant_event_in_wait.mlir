// Case 96 (selfcheck, handle-like constants): an integer constant as the
// event a stream waits on.  Found by `gpu-alloc-verify selfcheck` (operator
// handle-constant-use on mgpuStreamWaitEvent, whose first handle operand is
// the stream: here the second, the event, is the constant).  mgpuStreamWait-
// Event's roles are (stream, event): no event the runtime created is 0, 1 or
// 3, and the null event is no default (unlike the null stream on cuda).  The
// checking runtime records `invalid-handle`; the wait does nothing, so the
// second stream is not ordered after the first.
// Source: `gpu.wait async [%t0]` on another stream's token.
// twin: mlir-opt-19 --gpu-to-llvm's calls, plus the synchronize/destroy of
// the first stream mlir-opt-19 leaves out (as cases 92, 93).
// bug: the wait given `inttoptr 1` (the created event recorded, never
// waited on, destroyed): CUDA's CU_STREAM_LEGACY, a stream (case 102), and
// no event.
// bug:null: the wait given `inttoptr 0` (the null event).
// bug:gep: the wait given `getelementptr null[3]` over i8: the address 3,
// made without an inttoptr.

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
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug:null
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %bad = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }

// ---- bug:gep
  llvm.func @main() {
    %0 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op2")
    llvm.call @mgpuEventRecord(%1, %0) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    %2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %z = llvm.mlir.zero : !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %bad = llvm.getelementptr %z[%k] : (!llvm.ptr, i64) -> !llvm.ptr, i8 loc("op2")
    llvm.call @mgpuStreamWaitEvent(%2, %bad) : (!llvm.ptr, !llvm.ptr) -> () loc("op2")
    llvm.call @mgpuEventDestroy(%1) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%2) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%0) : (!llvm.ptr) -> () loc("op3")
    llvm.return
  }
