// Case 129 (issue 43): a helper makes two streams and returns them in a struct.
// Source: a host wait (one lowering may use two streams; both must go).
// twin: both fields destroyed.  bug: only field 0: field 1's stream leaks.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @make() -> !llvm.struct<(ptr, ptr)> {
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
    %x = llvm.insertvalue %a, %u[0] : !llvm.struct<(ptr, ptr)>
    %y = llvm.insertvalue %b, %x[1] : !llvm.struct<(ptr, ptr)>
    llvm.return %y : !llvm.struct<(ptr, ptr)>
  }
  llvm.func @main() {
    %r = llvm.call @make() : () -> !llvm.struct<(ptr, ptr)> loc("op1")
    %a = llvm.extractvalue %r[0] : !llvm.struct<(ptr, ptr)> loc("op2")
    %b = llvm.extractvalue %r[1] : !llvm.struct<(ptr, ptr)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @make() -> !llvm.struct<(ptr, ptr)> {
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
    %x = llvm.insertvalue %a, %u[0] : !llvm.struct<(ptr, ptr)>
    %y = llvm.insertvalue %b, %x[1] : !llvm.struct<(ptr, ptr)>
    llvm.return %y : !llvm.struct<(ptr, ptr)>
  }
  llvm.func @main() {
    %r = llvm.call @make() : () -> !llvm.struct<(ptr, ptr)> loc("op1")
    %a = llvm.extractvalue %r[0] : !llvm.struct<(ptr, ptr)> loc("op2")
    %b = llvm.extractvalue %r[1] : !llvm.struct<(ptr, ptr)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
