// Case 12: a stream passed to an external function.
// @opaque_sink is declared without a body: it may destroy (or keep, or use)
// the stream it is given.
// twin: the stream is synchronized, then handed to @opaque_sink and never
// destroyed by us. Whether it leaks depends on code the analysis cannot see:
// stream-no-leak must be exactly `unknown` (not `violated`, not `holds`).
// bug: handed to @opaque_sink and then destroyed twice by us: a double destroy
// whatever the sink does.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @opaque_sink(!llvm.ptr)
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @opaque_sink(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @opaque_sink(!llvm.ptr)
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @opaque_sink(%s) : (!llvm.ptr) -> () loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
