// Case 91 (runtime-contract's handle kinds): an integer constant reaches a
// stream operand as a helper function's argument.  The helper is inlined
// at its call: `inttoptr 3` given to it is what it synchronizes (3, not
// 1: CUDA defines 1 as CU_STREAM_LEGACY, a stream; case 102).
// twin: @sync given the stream; twin:int: @sync_int given the stream's
// address (ptrtoint), turning it back into the pointer (inttoptr).
// bug: @sync given `inttoptr 3`.
// bug:int: @sync_int given the i64 3: its inttoptr is no stream.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @sync(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @sync(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- twin:int
  llvm.func @sync_int(%h: i64) {
    %p = llvm.inttoptr %h : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %h = llvm.ptrtoint %s : !llvm.ptr to i64 loc("op2")
    llvm.call @sync_int(%h) : (i64) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @sync(%s: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    %p = llvm.inttoptr %k : i64 to !llvm.ptr loc("op2")
    llvm.call @sync(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.call @sync(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:int
  llvm.func @sync_int(%h: i64) {
    %p = llvm.inttoptr %h : i64 to !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %k = llvm.mlir.constant(3 : i64) : i64 loc("op2")
    llvm.call @sync_int(%k) : (i64) -> () loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
