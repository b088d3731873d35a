// Case 89 (selfcheck, moved event records: move-event-record, the class of
// sc_out4/01403 and 01457): the event record moved to another stream.
// Source as case 27 (a memset; a second stream waits on it; the host waits
// on that stream, then reads).
// twin: both streams kept in a two-element llvm.alloca array; the record
// takes element [0] (the memset's stream) through getelementptr.
// twin:record-in-helper: @mark records the event on the stream it is given,
// the memset's; a third, empty stream is made and destroyed alongside.
// bug: the record takes element [1], the waiting stream itself: the wait
// orders nothing after the memset, the read races it.
// bug:record-in-helper: @mark given the third, empty stream.
// bug:computed-index: the element index computed (1 * 1), not a constant
// in the getelementptr: the waiting stream again.

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
    %two = llvm.mlir.constant(2 : i64) : i64 loc("op4")
    %arr = llvm.alloca %two x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %a0 = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    %a1 = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %s, %a0 : !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %b, %a1 : !llvm.ptr, !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    %ai = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    %r = llvm.load %ai : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %r) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
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
    %c = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mark(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%c) : (!llvm.ptr) -> () loc("op4")
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
    %two = llvm.mlir.constant(2 : i64) : i64 loc("op4")
    %arr = llvm.alloca %two x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %a0 = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    %a1 = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %s, %a0 : !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %b, %a1 : !llvm.ptr, !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    %ai = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    %r = llvm.load %ai : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %r) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
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
    %c = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mark(%e, %c) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%c) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:computed-index
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %two = llvm.mlir.constant(2 : i64) : i64 loc("op4")
    %arr = llvm.alloca %two x !llvm.ptr : (i64) -> !llvm.ptr loc("op4")
    %a0 = llvm.getelementptr %arr[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    %a1 = llvm.getelementptr %arr[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %s, %a0 : !llvm.ptr, !llvm.ptr loc("op4")
    llvm.store %b, %a1 : !llvm.ptr, !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    %i1 = llvm.mlir.constant(1 : i64) : i64 loc("op4")
    %i2 = llvm.mul %i1, %i1 : i64 loc("op4")
    %ai = llvm.getelementptr %arr[%i2] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr loc("op4")
    %r = llvm.load %ai : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %r) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }
