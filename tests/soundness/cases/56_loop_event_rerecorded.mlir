// Case 56: an event re-recorded in every loop iteration; the host waits at
// the top of the next iteration (a software-pipelined lowering of case 55's
// source).
// twin: the event recorded once on an empty stream before the loop; each
// iteration synchronizes the event, reads, memsets and re-records the event
// on the memset's stream; the event synchronized after the loop: ordered
// (each synchronize sees the previous iteration's record).
// twin:record-in-helper: the re-record by @mark.
// bug: after the record on the memset's stream, the event is re-recorded on
// the empty stream: the next synchronize sees that record only.
// bug:record-in-helper: that re-record by @mark.
// bug:record-before-memset: the record issued before the memset (a reordered
// call): the next iteration's synchronize does not wait for the memset.

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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- twin:record-in-helper
  llvm.func @mark(%ev: !llvm.ptr, %st: !llvm.ptr) {
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mark(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:record-in-helper
  llvm.func @mark(%ev: !llvm.ptr, %st: !llvm.ptr) {
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.call @mark(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }

// ---- bug:record-before-memset
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
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op6")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.br ^hdr(%c0 : i64) loc("op2")
  ^hdr(%i: i64):
    %cond = llvm.icmp "slt" %i, %c2 : i64 loc("op2")
    llvm.cond_br %cond, ^body, ^exit loc("op2")
  ^body:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op3")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op5")
    %next = llvm.add %i, %c1 : i64 loc("op2")
    llvm.br ^hdr(%next : i64) loc("op2")
  ^exit:
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
