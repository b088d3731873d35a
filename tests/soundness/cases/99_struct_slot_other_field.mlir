// Case 99 (selfcheck, GEP stores): two streams stored through
// getelementptr into fields of one struct-typed alloca, and a field read
// back through another GEP form.  Found by `gpu-alloc-verify selfcheck`
// (operator gep-store-alloca, a handle stored through a GEP into a stack
// slot and loaded back).  The slot is !llvm.struct<(ptr, i64, ptr)>: field
// 0 at byte 0, field 2 at byte 16.  A load must see the store to the same
// bytes, whatever the GEP spells: [0, 2] over the struct, [16] over i8 and
// [2] over i64 all address field 2.
// Source: two streams, each waited on.
// twin: %a stored at [0, 0], %b at [0, 2]; field 2 loaded through [16] over
// i8 (%b) and %a's field through [0] over ptr: each synchronized and
// destroyed once.
// bug: field 2 loaded back (through [2] over i64) is taken for %a: it and
// %b are destroyed, so %b twice and %a never.
// bug:rewritten: field 2 read through [16] over i8 (%b) and stored to the
// slot's base, over field 0: field 0, loaded back through [0, 0], is %b,
// destroyed with %b.
// bug:heap: bug's program with the slot a 24-byte `malloc` (operator
// gep-store-heap): execution models host memory and sees the double
// destroy; the analysis does not follow handles stored to malloc'd memory
// (unknown; so no heap twin: a correct one is `unknown`, not `holds`).

// ---- source
func.func @main() {
  %t1 = gpu.wait async loc("op1")
  %t2 = gpu.wait async loc("op2")
  gpu.wait [%t1] loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.struct<(ptr, i64, ptr)> : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %fa = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op1")
    llvm.store %a, %fa : !llvm.ptr, !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %fb = llvm.getelementptr %slot[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op2")
    llvm.store %b, %fb : !llvm.ptr, !llvm.ptr loc("op2")
    %ga = llvm.getelementptr %slot[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr loc("op3")
    %x = llvm.load %ga : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    %gb = llvm.getelementptr %slot[16] : (!llvm.ptr) -> !llvm.ptr, i8 loc("op4")
    %y = llvm.load %gb : !llvm.ptr -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamSynchronize(%y) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%y) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.struct<(ptr, i64, ptr)> : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %fa = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op1")
    llvm.store %a, %fa : !llvm.ptr, !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %fb = llvm.getelementptr %slot[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op2")
    llvm.store %b, %fb : !llvm.ptr, !llvm.ptr loc("op2")
    %ga = llvm.getelementptr %slot[2] : (!llvm.ptr) -> !llvm.ptr, i64 loc("op3")
    %x = llvm.load %ga : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:rewritten
  llvm.func @main() {
    %n = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %n x !llvm.struct<(ptr, i64, ptr)> : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %fa = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op1")
    llvm.store %a, %fa : !llvm.ptr, !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %fb = llvm.getelementptr %slot[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op2")
    llvm.store %b, %fb : !llvm.ptr, !llvm.ptr loc("op2")
    %p16 = llvm.getelementptr %slot[16] : (!llvm.ptr) -> !llvm.ptr, i8 loc("op2")
    %bb = llvm.load %p16 : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.store %bb, %slot : !llvm.ptr, !llvm.ptr loc("op2")
    %ga = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op3")
    %x = llvm.load %ga : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:heap
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @main() {
    %n = llvm.mlir.constant(24 : i64) : i64 loc("op1")
    %slot = llvm.call @malloc(%n) : (i64) -> !llvm.ptr loc("op1")
    %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %fa = llvm.getelementptr %slot[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op1")
    llvm.store %a, %fa : !llvm.ptr, !llvm.ptr loc("op1")
    %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %fb = llvm.getelementptr %slot[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)> loc("op2")
    llvm.store %b, %fb : !llvm.ptr, !llvm.ptr loc("op2")
    %ga = llvm.getelementptr %slot[2] : (!llvm.ptr) -> !llvm.ptr, i64 loc("op3")
    %x = llvm.load %ga : !llvm.ptr -> !llvm.ptr loc("op3")
    llvm.call @mgpuStreamSynchronize(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamDestroy(%x) : (!llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
