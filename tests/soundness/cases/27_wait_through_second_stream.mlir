// Case 27: async-order through a second stream (what 19 emits for
// `gpu.wait async [%t]` then `gpu.wait [..]`).
// Source: a memset on the first stream; `gpu.wait async [%t2]` gives a
// second stream that waits on it; the host waits on that token, then reads.
// twin: the memset's stream recorded, the second stream told to wait on the
// event, the second stream synchronized, then the read: ordered (a stream
// synchronize waits for the events its stream waited on).
// twin:slot: the same, the second stream synchronized through an alloca slot.
// bug: the event recorded only after the wait was issued:
// the wait saw no record, nothing orders the memset before the read.
// bug:other-stream-via-slot: the synchronize takes a stream loaded from a
// slot that holds a third stream, one that waited on nothing.
// bug:sync-in-helper: @sync_stream synchronizes its argument, and is called
// with a third stream that waited on nothing.
// bug:sync-before-wait: the second stream synchronized before it is told to
// wait (a reordered call).

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
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- twin:slot
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
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op5")
    llvm.store %b, %slot : !llvm.ptr, !llvm.ptr loc("op5")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op5")
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
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:other-stream-via-slot
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
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %c = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %k = llvm.mlir.constant(1 : i64) : i64 loc("op5")
    %slot = llvm.alloca %k x !llvm.ptr : (i64) -> !llvm.ptr loc("op5")
    llvm.store %b, %slot : !llvm.ptr, !llvm.ptr loc("op5")
    llvm.store %c, %slot : !llvm.ptr, !llvm.ptr loc("op5")
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op5")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%c) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:sync-in-helper
  llvm.func @sync_stream(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
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
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %c = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    llvm.call @sync_stream(%c) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%c) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:sync-before-wait
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
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamWaitEvent(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }
