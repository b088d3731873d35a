// Case 15: a stream loaded from a pointer argument of @main.
// The lowered @main takes `%p: !llvm.ptr` (a caller's slot holding a stream
// the caller made) besides doing the source's own stream correctly.
// twin: the loaded stream is destroyed once: not a violation the analysis can
// show (it does not know what the caller stored): `unknown` or `holds`.
// bug: the loaded stream is destroyed twice: a double destroy whatever the
// caller stored.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main(%p: !llvm.ptr) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %q = llvm.load %p : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamDestroy(%q) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main(%p: !llvm.ptr) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    %q = llvm.load %p : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamDestroy(%q) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%q) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
