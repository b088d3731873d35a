// Case 88 (selfcheck, moved event records: move-event-record, the class of
// sc_out4/00956 and 01349): the event record moved above the memset it
// should capture, the event kept in an llvm.alloca slot.  Source as case
// 73 (memset, host wait, host read); the host waits through an event.
// twin: memset, then the event loaded from the slot is recorded on the
// memset's stream; the host synchronizes the event (loaded again), then
// reads.
// twin:record-in-helper: @mark(slot, stream) loads the event and records
// it, called after the memset.
// bug: the record moved above the memset: the event synchronize returns
// before the memset runs, the read races it.
// bug:record-in-helper: @mark called above the memset.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %v = memref.load %m[%c0] : memref<4xi32> loc("op5")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.store %e, %slot : !llvm.ptr, !llvm.ptr loc("op4")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %e1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e1, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventSynchronize(%e2) : (!llvm.ptr) -> () loc("op4")
    %e3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- twin:record-in-helper
  llvm.func @mark(%sl: !llvm.ptr, %st: !llvm.ptr) {
    %ev = llvm.load %sl : !llvm.ptr -> !llvm.ptr
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.store %e, %slot : !llvm.ptr, !llvm.ptr loc("op4")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mark(%slot, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventSynchronize(%e2) : (!llvm.ptr) -> () loc("op4")
    %e3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.store %e, %slot : !llvm.ptr, !llvm.ptr loc("op4")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    %e1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e1, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventSynchronize(%e2) : (!llvm.ptr) -> () loc("op4")
    %e3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug:record-in-helper
  llvm.func @mark(%sl: !llvm.ptr, %st: !llvm.ptr) {
    %ev = llvm.load %sl : !llvm.ptr -> !llvm.ptr
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.store %e, %slot : !llvm.ptr, !llvm.ptr loc("op4")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mark(%slot, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %e2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventSynchronize(%e2) : (!llvm.ptr) -> () loc("op4")
    %e3 = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }
