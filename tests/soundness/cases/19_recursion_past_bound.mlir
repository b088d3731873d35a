// Case 19 (extra): recursion deeper than the inlining bound.
// @drain(%s, %k) destroys %s when %k is 0 and otherwise calls itself with
// %k - 1; @main calls it with 6, past the extractor's inlining depth.
// twin: the stream is synchronized and destroyed once, at the bottom:
// `unknown` is acceptable (the destroy lies past the bound), `violated` is not.
// bug: the bottom destroys twice: never `holds`.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @drain(%s: !llvm.ptr, %k: i64) {
    %zero = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %done = llvm.icmp "eq" %k, %zero : i64 loc("op2")
    llvm.cond_br %done, ^last, ^more loc("op2")
  ^last:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^more:
    %k1 = llvm.sub %k, %one : i64 loc("op2")
    llvm.call @drain(%s, %k1) : (!llvm.ptr, i64) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %six = llvm.mlir.constant(6 : i64) : i64 loc("op2")
    llvm.call @drain(%s, %six) : (!llvm.ptr, i64) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @drain(%s: !llvm.ptr, %k: i64) {
    %zero = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %done = llvm.icmp "eq" %k, %zero : i64 loc("op2")
    llvm.cond_br %done, ^last, ^more loc("op2")
  ^last:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^more:
    %k1 = llvm.sub %k, %one : i64 loc("op2")
    llvm.call @drain(%s, %k1) : (!llvm.ptr, i64) -> () loc("op2")
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %six = llvm.mlir.constant(6 : i64) : i64 loc("op2")
    llvm.call @drain(%s, %six) : (!llvm.ptr, i64) -> () loc("op2")
    llvm.return
  }
