// Case 57: two loops one after the other, with different trip counts: the
// host wait in the first loop's last iteration orders the read in the
// second loop's first iteration (iteration numbers 1 and 0: source order,
// not iteration numbers, decides across loops).
// Source: a 2-trip loop of memset + host wait, then a 1-trip loop of reads.
// twin: one stream; each iteration synchronizes it (waiting for the previous
// iteration's memset), then memsets; a synchronize after the loop: ordered.
// twin:finish-in-helper: the last synchronize and destroy in @finish.
// bug: the synchronize after the first loop dropped: the last memset is
// unordered with the read.
// bug:finish-other-stream: @finish called after the first loop with another
// stream.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  scf.for %i = %c0 to %c2 step %c1 {
    %t1 = gpu.wait async loc("op3")
    %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op4")
    gpu.wait [%t2] loc("op5")
  } loc("op2")
  scf.for %j = %c0 to %c1 step %c1 {
    %x = memref.load %m[%c0] : memref<4xi32> loc("op7")
  } loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.br ^hdr2(%c0 : i64) loc("op6")
  ^hdr2(%j: i64):
    %cond2 = llvm.icmp "slt" %j, %c1 : i64 loc("op6")
    llvm.cond_br %cond2, ^body2, ^exit2 loc("op6")
  ^body2:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next2 = llvm.add %j, %c1 : i64 loc("op6")
    llvm.br ^hdr2(%next2 : i64) loc("op6")
  ^exit2:
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
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
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.br ^hdr2(%c0 : i64) loc("op6")
  ^hdr2(%j: i64):
    %cond2 = llvm.icmp "slt" %j, %c1 : i64 loc("op6")
    llvm.cond_br %cond2, ^body2, ^exit2 loc("op6")
  ^body2:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next2 = llvm.add %j, %c1 : i64 loc("op6")
    llvm.br ^hdr2(%next2 : i64) loc("op6")
  ^exit2:
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.br ^hdr2(%c0 : i64) loc("op6")
  ^hdr2(%j: i64):
    %cond2 = llvm.icmp "slt" %j, %c1 : i64 loc("op6")
    llvm.cond_br %cond2, ^body2, ^exit2 loc("op6")
  ^body2:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next2 = llvm.add %j, %c1 : i64 loc("op6")
    llvm.br ^hdr2(%next2 : i64) loc("op6")
  ^exit2:
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.return
  }

// ---- bug:finish-other-stream
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
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op4")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op4")
    %c0 = llvm.mlir.constant(0 : i64) : i64 loc("op2")
    %c1 = llvm.mlir.constant(1 : i64) : i64 loc("op2")
    %c2 = llvm.mlir.constant(2 : i64) : i64 loc("op2")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @finish(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.br ^hdr2(%c0 : i64) loc("op6")
  ^hdr2(%j: i64):
    %cond2 = llvm.icmp "slt" %j, %c1 : i64 loc("op6")
    llvm.cond_br %cond2, ^body2, ^exit2 loc("op6")
  ^body2:
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next2 = llvm.add %j, %c1 : i64 loc("op6")
    llvm.br ^hdr2(%next2 : i64) loc("op6")
  ^exit2:
    llvm.return
  }
