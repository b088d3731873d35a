// Case 21 (extra): two slots of one alloca array (getelementptr).
// The stream goes to element 0, a null pointer to element 1.
// twin: element 0 loaded back, synchronized and destroyed: correct; an
// analysis that merges the two elements must say `unknown`, not a leak.
// bug: element 1 (null) loaded back and destroyed: the stream leaks.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %two = llvm.mlir.constant(2 : i64) : i64 loc("op1")
    %arr = llvm.alloca %two x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %p0 = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op1")
    %p1 = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    llvm.store %s, %p0 : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.store %z, %p1 : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %p0 : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %two = llvm.mlir.constant(2 : i64) : i64 loc("op1")
    %arr = llvm.alloca %two x !llvm.ptr : (i64) -> !llvm.ptr loc("op1")
    %p0 = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op1")
    %p1 = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %z = llvm.mlir.zero : !llvm.ptr loc("op1")
    llvm.store %s, %p0 : !llvm.ptr, !llvm.ptr loc("op1")
    llvm.store %z, %p1 : !llvm.ptr, !llvm.ptr loc("op1")
    %l = llvm.load %p1 : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
