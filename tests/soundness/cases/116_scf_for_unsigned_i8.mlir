// Case 116 (issue 43): `scf.for unsigned` over i8 to 200 (-56 as signed).
// Source: a host wait.
// twin: step 200: exactly one round (0 <u 200; 200 is not), which
// synchronizes and destroys the stream once.
// bug: step 100: two rounds (0, 100), the stream destroyed twice.
// Read signed, the loop runs no round: a leak in both, the bug missed.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %lb = llvm.mlir.constant(0 : i8) : i8
    %ub = llvm.mlir.constant(-56 : i8) : i8
    %st = llvm.mlir.constant(-56 : i8) : i8
    "scf.for"(%lb, %ub, %st) ({
    ^bb0(%i: i8):
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
      "scf.yield"() : () -> ()
    }) {unsignedCmp} : (i8, i8, i8) -> ()
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %lb = llvm.mlir.constant(0 : i8) : i8
    %ub = llvm.mlir.constant(-56 : i8) : i8
    %st = llvm.mlir.constant(100 : i8) : i8
    "scf.for"(%lb, %ub, %st) ({
    ^bb0(%i: i8):
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
      "scf.yield"() : () -> ()
    }) {unsignedCmp} : (i8, i8, i8) -> ()
    llvm.return
  }
