// Case 35 (exact semantics): aggregates nest.
// The stream goes into an inner struct, the inner struct into an outer one;
// it is read back by `extractvalue [1, 0]` (or [1] then [0]).
// twin, twin:steps: the value read back is synchronized and destroyed: once.
// bug, bug:steps: it is destroyed, and the stream once more.
// Keeping only one level of fields loses the stream: a false holds on the
// bugs and a false leak on the twins.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %in0 = llvm.mlir.undef : !llvm.struct<(ptr, i64)> loc("op1")
    %in1 = llvm.insertvalue %s, %in0[0] : !llvm.struct<(ptr, i64)> loc("op1")
    %o0 = llvm.mlir.undef : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %o1 = llvm.insertvalue %in1, %o0[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %x = llvm.extractvalue %o1[1, 0] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op2")

    llvm.return
  }

// ---- twin:steps
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %in0 = llvm.mlir.undef : !llvm.struct<(ptr, i64)> loc("op1")
    %in1 = llvm.insertvalue %s, %in0[0] : !llvm.struct<(ptr, i64)> loc("op1")
    %o0 = llvm.mlir.undef : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %o1 = llvm.insertvalue %in1, %o0[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %y = llvm.extractvalue %o1[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op2")
    %x = llvm.extractvalue %y[0] : !llvm.struct<(ptr, i64)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op2")

    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %in0 = llvm.mlir.undef : !llvm.struct<(ptr, i64)> loc("op1")
    %in1 = llvm.insertvalue %s, %in0[0] : !llvm.struct<(ptr, i64)> loc("op1")
    %o0 = llvm.mlir.undef : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %o1 = llvm.insertvalue %in1, %o0[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %x = llvm.extractvalue %o1[1, 0] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:steps
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %in0 = llvm.mlir.undef : !llvm.struct<(ptr, i64)> loc("op1")
    %in1 = llvm.insertvalue %s, %in0[0] : !llvm.struct<(ptr, i64)> loc("op1")
    %o0 = llvm.mlir.undef : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %o1 = llvm.insertvalue %in1, %o0[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op1")
    %y = llvm.extractvalue %o1[1] : !llvm.struct<(i64, struct<(ptr, i64)>)> loc("op2")
    %x = llvm.extractvalue %y[0] : !llvm.struct<(ptr, i64)> loc("op2")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
