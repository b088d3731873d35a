// Case 37 (exact semantics): a call through a function pointer.
// `llvm.call %f()` with %f = llvm.mlir.addressof @mgpuStreamCreate creates
// a stream; one through a pointer loaded from a global may create one too.
// twin: the stream created through %f is synchronized and destroyed.
// bug: it is never destroyed: the stream leaks.
// bug:unresolved: the pointer is loaded from @fp (not known here): what
// the call creates is not seen, so no leak verdict can be `holds`.
// Reading an indirect call as an escape of its operands only (it may
// destroy, never create) says `holds` on both bugs.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %f = llvm.mlir.addressof @mgpuStreamCreate : !llvm.ptr loc("op1")
    %s = llvm.call %f() : !llvm.ptr, () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %f = llvm.mlir.addressof @mgpuStreamCreate : !llvm.ptr loc("op1")
    %s = llvm.call %f() : !llvm.ptr, () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:unresolved
  llvm.mlir.global external @fp() {addr_space = 0 : i32} : !llvm.ptr
  llvm.func @main() {
    %g = llvm.mlir.addressof @fp : !llvm.ptr loc("op1")
    %f = llvm.load %g : !llvm.ptr -> !llvm.ptr loc("op1")
    %s = llvm.call %f() : !llvm.ptr, () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
