// Case 52: a host read is ordered before LATER async work that writes the
// buffer (program order), and the work a host wait awaited before it.
// Source: memset 3 on a host_shared buffer, host wait, host read, then an
// async memset 7 of the same buffer on a new stream.
// twin: read, then the second memset is issued: ordered.
// twin:fill-in-helper: the same, the second memset issued by @fill.
// bug: the second memset issued before the read (a reordered call): the read
// may see 7.
// bug:fill-in-helper: @fill called before the read.
// bug:fill-no-location: the same, the memset in @fill without a location
// (its work is tied to no source op: unknown).

// ---- source
func.func @main() {
  %c3 = arith.constant 3 : i32
  %c7 = arith.constant 7 : i32
  %c0 = arith.constant 0 : index
  %m = gpu.alloc host_shared () : memref<4xi32> loc("op1")
  %t0 = gpu.wait async loc("op2")
  %t1 = gpu.memset async [%t0] %m, %c3 : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t1] loc("op4")
  %x = memref.load %m[%c0] : memref<4xi32> loc("op5")
  %t2 = gpu.wait async loc("op6")
  %t3 = gpu.memset async [%t2] %m, %c7 : memref<4xi32>, i32 loc("op7")
  gpu.wait [%t3] loc("op8")
  return
}

// ---- twin
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op6")
    %w = llvm.mlir.constant(7 : i32) : i32 loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @mgpuMemset32(%m, %w, %n, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- twin:fill-in-helper
  llvm.func @fill(%p: !llvm.ptr, %w: i32, %n: i64, %x: !llvm.ptr) {
    llvm.call @mgpuMemset32(%p, %w, %n, %x) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op6")
    %w = llvm.mlir.constant(7 : i32) : i32 loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @fill(%m, %w, %n, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op6")
    %w = llvm.mlir.constant(7 : i32) : i32 loc("op7")
    llvm.call @mgpuMemset32(%m, %w, %n, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug:fill-in-helper
  llvm.func @fill(%p: !llvm.ptr, %w: i32, %n: i64, %x: !llvm.ptr) {
    llvm.call @mgpuMemset32(%p, %w, %n, %x) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op6")
    %w = llvm.mlir.constant(7 : i32) : i32 loc("op7")
    llvm.call @fill(%m, %w, %n, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }

// ---- bug:fill-no-location
  llvm.func @fill(%p: !llvm.ptr, %w: i32, %n: i64, %x: !llvm.ptr) {
    llvm.call @mgpuMemset32(%p, %w, %n, %x) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %sz = llvm.mlir.constant(16 : i64) : i64 loc("op1")
    %null = llvm.mlir.zero : !llvm.ptr loc("op1")
    %one = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %m = llvm.call @mgpuMemAlloc(%sz, %null, %one) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %v = llvm.mlir.constant(3 : i32) : i32 loc("op3")
    %n = llvm.mlir.constant(4 : i64) : i64 loc("op3")
    llvm.call @mgpuMemset32(%m, %v, %n, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op4")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op6")
    %w = llvm.mlir.constant(7 : i32) : i32 loc("op7")
    llvm.call @fill(%m, %w, %n, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op7")
    %x = llvm.load %m : !llvm.ptr -> i32 loc("op5")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op8")
    llvm.return
  }
