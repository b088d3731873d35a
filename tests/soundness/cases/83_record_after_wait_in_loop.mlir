// Case 83 (selfcheck, reordered calls: swap-adjacent-calls, the operator
// of sc_out/04302, there a destroy/synchronize swap in an scf.for; here a
// record/wait swap): in a cf loop, the event record
// swapped below the stream wait that should see it.  Source: a 2-trip loop;
// each iteration memsets on a new stream, `gpu.wait async [%t2]` gives a
// second stream that waits on it, the host waits on that token and reads.
// twin: real shape per iteration: record on the memset's stream, the second
// stream waits, the host synchronizes the second stream, then the read.
// twin:event-hoisted: one event made before the loop, recorded and waited
// on per iteration, destroyed after it.
// bug: per iteration, the wait issued before the record: it sees no record,
// the read races the memset.
// bug:event-hoisted: the event made before the loop; the record below the
// wait: iteration 0's wait sees no record, iteration 1's sees iteration 0's
// (an earlier memset), neither orders its memset before its read.
// bug:destroy-in-loop: the event made before the loop, recorded before the
// wait, but its destroy moved from after the loop into the body: iteration
// 1 records and waits on a destroyed event (uses after destroy that order
// nothing), its read races its memset.

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
    %t3 = gpu.wait async [%t2] loc("op5")
    gpu.wait [%t3] loc("op6")
    %x = memref.load %m[%c0] : memref<4xi32> loc("op7")
  } loc("op2")
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
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- twin:event-hoisted
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
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op5")
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
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }

// ---- bug:event-hoisted
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
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op5")
    llvm.return
  }

// ---- bug:destroy-in-loop
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
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op5")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op7")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.return
  }
