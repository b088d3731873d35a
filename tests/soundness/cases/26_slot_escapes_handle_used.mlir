// Case 26 (extra): an alloca slot that escapes to an external function, the
// handle itself used afterwards.
// twin: the stream is stored to a slot, the slot's address is passed to
// @opaque_sink, then the stream (the SSA value, not a load) is synchronized
// and destroyed. The sink can read the stream from the slot and destroy it,
// exactly as if the stream itself had been passed (compare case 12): then our
// synchronize and destroy come after its destroy. stream-no-use-after-destroy
// and stream-no-leak must both be exactly `unknown`.
// bug: the same with our destroy doubled: a double destroy whatever the sink
// does.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @opaque_sink(!llvm.ptr)
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.call @opaque_sink(%slot) : (!llvm.ptr) -> () loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @opaque_sink(!llvm.ptr)
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.call @opaque_sink(%slot) : (!llvm.ptr) -> () loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
