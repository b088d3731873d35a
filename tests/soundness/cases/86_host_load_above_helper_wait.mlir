// Case 86 (selfcheck, moved host accesses: move-host-access, the class of
// sc_out/00491 and sc_out4/04345): a host load moved above the host wait,
// across the helper call that does the wait.  Source as case 73 (memset,
// host wait, host read).
// twin: @finish (synchronize, destroy) called, then the load.
// twin:load-in-helper: @finish, then @get does the load.
// bug: the load moved above the call of @finish: it races the memset.
// bug:load-in-helper: @get called above @finish.
// bug:load-in-finish: the load moved into @finish (given the buffer), above
// its synchronize.

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
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
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
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.return
  }

// ---- twin:load-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @get(%q: !llvm.ptr) -> i32 {
    %r = llvm.load %q : !llvm.ptr -> i32 loc("op5")
    llvm.return %r : i32
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    %x = llvm.call @get(%p) : (!llvm.ptr) -> i32 loc("op5")
    llvm.return
  }

// ---- bug
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
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
    %x = llvm.load %p : !llvm.ptr -> i32 loc("op5")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:load-in-helper
  llvm.func @finish(%x: !llvm.ptr) {
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @get(%q: !llvm.ptr) -> i32 {
    %r = llvm.load %q : !llvm.ptr -> i32 loc("op5")
    llvm.return %r : i32
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op2")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op2")
    %p = llvm.call @mgpuMemAlloc(%sz, %s, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%p, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %x = llvm.call @get(%p) : (!llvm.ptr) -> i32 loc("op5")
    llvm.call @finish(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:load-in-finish
  llvm.func @finish(%x: !llvm.ptr, %q: !llvm.ptr) {
    %r = llvm.load %q : !llvm.ptr -> i32 loc("op5")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> ()
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
    llvm.call @finish(%s, %p) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.return
  }
