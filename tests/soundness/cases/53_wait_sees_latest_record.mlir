// Case 53: `mgpuStreamWaitEvent` sees the event's latest record only.
// Source: a memset on the first stream; `gpu.wait async [%t2]` gives a
// second stream that waits on it; the host waits on that token, then reads.
// twin: the event first recorded on the second stream, then re-recorded on
// the first; the wait sees the first stream's record: ordered.
// twin:record-in-helper: the same, the re-record by @mark.
// bug: recorded on the first stream, then re-recorded on the second before
// the wait: the wait sees only the second stream's (empty) record, nothing
// orders the memset before the read.
// bug:record-in-helper: the re-record done by @mark.
// bug:event-via-slot: the re-record through an event loaded from a slot.

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  %t3 = gpu.wait async [%t2] loc("op4")
  gpu.wait [%t3] loc("op5")
  %v = memref.load %m[%c0] : memref<4xi32> loc("op6")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- twin:record-in-helper
  llvm.func @mark(%ev: !llvm.ptr, %st: !llvm.ptr) {
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mark(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:record-in-helper
  llvm.func @mark(%ev: !llvm.ptr, %st: !llvm.ptr) {
    llvm.call @mgpuEventRecord(%ev, %st) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mark(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:event-via-slot
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    llvm.store %e, %slot : !llvm.ptr, !llvm.ptr loc("op4")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%l, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }
