// Case 31 (exact semantics): `trunc`, `zext` and `sext` change the bits.
// trunc i32 256 to i8 is 0; zext i8 -1 to i32 is 255; sext i8 100 + 100
// (-56) to i32 is negative.  Each compare below is true.
// bug, bug:zext, bug:sext: the true branch destroys the stream twice.
// twin, twin:zext, twin:sext: the true branch destroys it once.
// Casts that pass their operand through read 256 == 0, -1 == 255 and
// 200 < 0 as false: false holds on the bugs, false violations on the twins.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.mlir.constant(256 : i32) : i32 loc("op2")
    %t = llvm.trunc %x : i32 to i8 loc("op2")
    %z = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %c = llvm.icmp "eq" %t, %z : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^once, ^twice loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- twin:zext
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %m = llvm.mlir.constant(-1 : i8) : i8 loc("op2")
    %w = llvm.zext %m : i8 to i32 loc("op2")
    %k = llvm.mlir.constant(255 : i32) : i32 loc("op2")
    %c = llvm.icmp "eq" %w, %k : i32 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^once, ^twice loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- twin:sext
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %h = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    %m = llvm.add %h, %h : i8 loc("op2")
    %w = arith.extsi %m : i8 to i32 loc("op2")
    %z = llvm.mlir.constant(0 : i32) : i32 loc("op2")
    %c = llvm.icmp "slt" %w, %z : i32 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^once, ^twice loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %x = llvm.mlir.constant(256 : i32) : i32 loc("op2")
    %t = llvm.trunc %x : i32 to i8 loc("op2")
    %z = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %c = llvm.icmp "eq" %t, %z : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:zext
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %m = llvm.mlir.constant(-1 : i8) : i8 loc("op2")
    %w = llvm.zext %m : i8 to i32 loc("op2")
    %k = llvm.mlir.constant(255 : i32) : i32 loc("op2")
    %c = llvm.icmp "eq" %w, %k : i32 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug:sext
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %h = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    %m = llvm.add %h, %h : i8 loc("op2")
    %w = arith.extsi %m : i8 to i32 loc("op2")
    %z = llvm.mlir.constant(0 : i32) : i32 loc("op2")
    %c = llvm.icmp "slt" %w, %z : i32 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
