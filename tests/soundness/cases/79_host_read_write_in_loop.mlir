// Case 79 (selfcheck's class of case 72): a host read and write of one
// element in a cf loop (2 trips): iteration 0 reads the memset's 3,
// iteration 1 the 5 iteration 0 wrote.
// twin: real scf-to-cf shape: read, then write, per iteration.
// twin:store-in-helper: the write by @put.
// bug: write, then read, per iteration: iteration 0 reads 5.
// bug:store-in-helper: @put called above the read.
// bug:store-hoisted: one write above the loop, the loop only reads.

// ---- source
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.memset async [%t] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  scf.for %i = %c0 to %c2 step %c1 {
    %x = memref.load %m[%c0] : memref<4xi32> loc("op6")
    memref.store %c5, %m[%c0] : memref<4xi32> loc("op7")
  } loc("op5")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op7")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op5")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op5")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op5")
    llvm.cond_br %cond, ^body, ^exit loc("op5")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op6")
    llvm.store %five, %m : i32, !llvm.ptr loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op5")
    llvm.br ^hdr(%next : i64) loc("op5")
  ^exit:
    llvm.return
  }

// ---- twin:store-in-helper
  llvm.func @put(%p: !llvm.ptr, %w: i32) {
    llvm.store %w, %p : i32, !llvm.ptr loc("op7")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op7")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op5")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op5")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op5")
    llvm.cond_br %cond, ^body, ^exit loc("op5")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op6")
    llvm.call @put(%m, %five) : (!llvm.ptr, i32) -> () loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op5")
    llvm.br ^hdr(%next : i64) loc("op5")
  ^exit:
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op7")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op5")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op5")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op5")
    llvm.cond_br %cond, ^body, ^exit loc("op5")
  ^body:
    llvm.store %five, %m : i32, !llvm.ptr loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op5")
    llvm.br ^hdr(%next : i64) loc("op5")
  ^exit:
    llvm.return
  }

// ---- bug:store-in-helper
  llvm.func @put(%p: !llvm.ptr, %w: i32) {
    llvm.store %w, %p : i32, !llvm.ptr loc("op7")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op7")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op5")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op5")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op5")
    llvm.cond_br %cond, ^body, ^exit loc("op5")
  ^body:
    llvm.call @put(%m, %five) : (!llvm.ptr, i32) -> () loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op5")
    llvm.br ^hdr(%next : i64) loc("op5")
  ^exit:
    llvm.return
  }

// ---- bug:store-hoisted
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %five = llvm.mlir.constant(5 : i32) : i32 loc("op7")
    llvm.store %five, %m : i32, !llvm.ptr loc("op7")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op5")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op5")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op5")
    llvm.cond_br %cond, ^body, ^exit loc("op5")
  ^body:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op5")
    llvm.br ^hdr(%next : i64) loc("op5")
  ^exit:
    llvm.return
  }
