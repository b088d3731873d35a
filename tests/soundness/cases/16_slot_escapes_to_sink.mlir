// Case 16 (extra): an alloca slot that escapes to an external function.
// twin: the stream is stored to a slot whose address is then passed to
// @opaque_sink; the value loaded back afterwards is synchronized and
// destroyed. The sink may have overwritten the slot (then our stream leaks)
// or destroyed the stream and left it there (then our synchronize and
// destroy come after its destroy): stream-no-leak and
// stream-no-use-after-destroy must both be exactly `unknown`, and nothing
// `violated`.
// bug: the slot is handed to the sink first and written afterwards (so the
// load reads our stream), and the loaded value is destroyed twice: a double
// destroy whatever the sink did.

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
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @opaque_sink(!llvm.ptr)
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    llvm.call @opaque_sink(%slot) : (!llvm.ptr) -> () loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
