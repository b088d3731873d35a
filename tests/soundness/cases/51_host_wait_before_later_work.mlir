// Case 51: a host wait orders the work it awaits before LATER async work.
// Source: a memset on the first stream, a host `gpu.wait` on it, then a
// memcpy that reads the buffer on a second stream made after the wait.
// twin: synchronize the first stream, then create the second and copy:
// ordered (the copy is issued after the synchronize returned).
// twin:sync-in-helper: the same, the synchronize and destroy in @finish.
// bug: the synchronize moved below the copy (a reordered call): the copy
// may run before the memset.
// bug:finish-in-helper: @finish (synchronize + destroy) called after the copy.
// bug:event-sync-of-stream: `mgpuEventSynchronize` of the stream handle in
// place of the stream synchronize: it does not wait (CUDA wrapper).

// ---- source
func.func @main() {
  %cst = arith.constant 3 : i32
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<4xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %m, %cst : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t2] loc("op4")
  %t3 = gpu.wait async loc("op5")
  %d, %t4 = gpu.alloc async [%t3] () : memref<4xi32> loc("op6")
  %t5 = gpu.memcpy async [%t4] %d, %m : memref<4xi32>, memref<4xi32> loc("op7")
  gpu.wait [%t5] loc("op8")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %m = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op6")
    %d = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op6")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- twin:sync-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %m = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op6")
    %d = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op6")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %m = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op6")
    %d = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op6")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug:finish-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %m = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op6")
    %d = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op6")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug:event-sync-of-stream
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %m = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuEventSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op5")
    %zero = llvm.mlir.constant(0 : i8) : i8 loc("op6")
    %d = llvm.call @mgpuMemAlloc(%sz, %b, %zero) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op6")
    llvm.call @mgpuMemcpy(%d, %m, %sz, %b) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }
