// Case 128 (issue 43): the stream in a struct a helper returns.
// Source: a host wait.
// twin: field 0 (the stream) destroyed.  bug: field 1 (null): the null
// stream destroyed, the stream leaks.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @pack(%a: !llvm.ptr) -> !llvm.struct<(ptr, ptr)> {
    %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
    %z = llvm.mlir.zero : !llvm.ptr
    %x = llvm.insertvalue %a, %u[0] : !llvm.struct<(ptr, ptr)>
    %y = llvm.insertvalue %z, %x[1] : !llvm.struct<(ptr, ptr)>
    llvm.return %y : !llvm.struct<(ptr, ptr)>
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %r = llvm.call @pack(%s) : (!llvm.ptr) -> !llvm.struct<(ptr, ptr)> loc("op1")
    %p = llvm.extractvalue %r[0] : !llvm.struct<(ptr, ptr)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @pack(%a: !llvm.ptr) -> !llvm.struct<(ptr, ptr)> {
    %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
    %z = llvm.mlir.zero : !llvm.ptr
    %x = llvm.insertvalue %a, %u[0] : !llvm.struct<(ptr, ptr)>
    %y = llvm.insertvalue %z, %x[1] : !llvm.struct<(ptr, ptr)>
    llvm.return %y : !llvm.struct<(ptr, ptr)>
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %r = llvm.call @pack(%s) : (!llvm.ptr) -> !llvm.struct<(ptr, ptr)> loc("op1")
    %p = llvm.extractvalue %r[1] : !llvm.struct<(ptr, ptr)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
