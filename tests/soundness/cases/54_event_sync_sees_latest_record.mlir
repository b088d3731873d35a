// Case 54: `mgpuEventSynchronize` waits for the event's latest record only;
// a record issued after the synchronize orders nothing.
// Source: a memset, a host wait on it, a host read.
// twin: the event recorded on a second (empty) stream, re-recorded on the
// memset's stream, then synchronized: ordered.
// twin:record-in-helper: the same, the re-record by @mark.
// bug: recorded on the memset's stream, re-recorded on the second stream,
// then synchronized: the synchronize waits for the empty stream only.
// bug:record-in-helper: that re-record done by @mark.
// bug:record-after-sync: the record issued after the synchronize (a
// reordered call).

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
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
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
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
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
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %b) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
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
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- bug:record-after-sync
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
    llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }
