// Case 70 (selfcheck, handle-like constants): an integer constant turned
// into a pointer is no handle the runtime made.  Found by `gpu-alloc-verify
// selfcheck` (operator handle-constant-use, on mlir-opt-19/22 and
// xdsl:split-api output): synchronizing `inttoptr 1` is an invalid handle
// on the cuda profile (execution: "invalid-handle ... 0x1 is no stream this
// runtime created"), yet runtime-contract said holds.  (1 has since been
// modelled as CUDA defines it: CU_STREAM_LEGACY, a stream; case 102.  The
// case keeps its point with 7, which no runtime defines.)
// twin: the real mlir-opt-19 output: create, synchronize, destroy.
// bug: an extra synchronize of `inttoptr 7` (bug:event: an event
// synchronize of `inttoptr 3`).

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(7 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:event
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuEventSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
