// Case 76 (selfcheck's class of case 71): in a cf loop, each iteration's
// stream destroyed before its synchronize.  Source as case 55 (a 2-trip
// loop: host read, memset on a new stream, host wait).
// twin: real scf-to-cf shape: synchronize, then destroy, per iteration.
// twin:finish-in-helper: the same in @finish.
// bug: destroy, then synchronize, per iteration: iteration 1's read (and
// its memset) may run before iteration 0's memset ends.
// bug:finish-in-helper: the same in @finish.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  scf.for %i = %c0 to %c2 step %c1 {
    %x = memref.load %m[%c0] : memref<4xi32> loc("op3")
    %t1 = gpu.wait async loc("op4")
    %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op5")
    gpu.wait [%t2] loc("op6")
  } loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op5")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op5")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- twin:finish-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op5")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op5")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op5")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op5")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- bug:finish-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op5")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op5")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }
