// Case 84 (selfcheck, reordered calls: destroy-earlier, the class of case
// 75's bug:wait): the event destroyed before the stream wait that uses it,
// hidden in a helper.  Source as case 27 (a memset; a second stream waits
// on it; the host waits on that stream, then reads).
// twin: @join makes the second stream wait on the event, then destroys it.
// twin:nested: @link calls @join (the wait), then @drop (the destroy).
// bug: @join destroys the event, then waits on it (a use after destroy
// that orders nothing): the host's synchronize of the second stream does
// not wait for the memset, the read races it.
// bug:nested: @link calls @drop before @join.

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
  llvm.func @join(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @mgpuStreamWaitEvent(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%ev) : (!llvm.ptr) -> ()
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
    llvm.call @join(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- twin:nested
  llvm.func @join(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @mgpuStreamWaitEvent(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @drop(%ev: !llvm.ptr) {
    llvm.call @mgpuEventDestroy(%ev) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @link(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @join(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.call @drop(%ev) : (!llvm.ptr) -> ()
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
    llvm.call @link(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug
  llvm.func @join(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @mgpuEventDestroy(%ev) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamWaitEvent(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
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
    llvm.call @join(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }

// ---- bug:nested
  llvm.func @join(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @mgpuStreamWaitEvent(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @drop(%ev: !llvm.ptr) {
    llvm.call @mgpuEventDestroy(%ev) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @link(%st: !llvm.ptr, %ev: !llvm.ptr) {
    llvm.call @drop(%ev) : (!llvm.ptr) -> ()
    llvm.call @join(%st, %ev) : (!llvm.ptr, !llvm.ptr) -> ()
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
    llvm.call @link(%b, %e) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op5")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op6")
    llvm.return
  }
