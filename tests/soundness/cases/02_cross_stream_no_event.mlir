// Case 02: async-order across streams.
// Source: memset on the first stream; `gpu.wait async [%t2]` starts a second
// stream for the alloc and the memcpy, which reads the memset's buffer.
// twin: mlir-opt-19 --gpu-to-llvm output (event create/record, stream wait,
// event destroy), plus the synchronize/destroy of the first stream that
// mlir-opt-19 leaves out (its known stream-no-leak finding), so that only
// the construct under test is judged.
// bug: the event create/record/wait/destroy removed: the memcpy on the second
// stream may run before the memset on the first one.

// ---- source
func.func @main() {
  %cst = arith.constant 7 : i32
  %t0 = gpu.wait async loc("op1")
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xi32> loc("op2")
  %t2 = gpu.memset async [%t1] %a, %cst : memref<16xi32>, i32 loc("op3")
  %t3 = gpu.wait async [%t2] loc("op4")
  %b, %t4 = gpu.alloc async [%t3] () : memref<16xi32> loc("op5")
  %t5 = gpu.memcpy async [%t4] %b, %a : memref<16xi32>, memref<16xi32> loc("op6")
  gpu.wait [%t5] loc("op7")
  return
}

// ---- twin
  llvm.func @main() {
    %0 = llvm.mlir.constant(7 : i32) : i32
    %1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %2 = llvm.mlir.constant(16 : index) : i64 loc("op2")
    %3 = llvm.mlir.constant(1 : index) : i64 loc("op2")
    %4 = llvm.mlir.zero : !llvm.ptr loc("op2")
    %5 = llvm.getelementptr %4[%2] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op2")
    %6 = llvm.ptrtoint %5 : !llvm.ptr to i64 loc("op2")
    %7 = llvm.mlir.zero : !llvm.ptr loc("op2")
    %8 = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %9 = llvm.call @mgpuMemAlloc(%6, %1, %8) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %10 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op2")
    %11 = llvm.insertvalue %9, %10[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %12 = llvm.insertvalue %9, %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %13 = llvm.mlir.constant(0 : index) : i64 loc("op2")
    %14 = llvm.insertvalue %13, %12[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %15 = llvm.insertvalue %2, %14[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %16 = llvm.insertvalue %3, %15[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %17 = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %18 = llvm.bitcast %0 : i32 to i32 loc("op3")
    %19 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemset32(%19, %18, %17, %1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %20 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuEventRecord(%20, %1) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    %21 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    llvm.call @mgpuStreamWaitEvent(%21, %20) : (!llvm.ptr, !llvm.ptr) -> () loc("op4")
    llvm.call @mgpuEventDestroy(%20) : (!llvm.ptr) -> () loc("op4")
    %22 = llvm.mlir.constant(16 : index) : i64 loc("op5")
    %23 = llvm.mlir.constant(1 : index) : i64 loc("op5")
    %24 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %25 = llvm.getelementptr %24[%22] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op5")
    %26 = llvm.ptrtoint %25 : !llvm.ptr to i64 loc("op5")
    %27 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %28 = llvm.mlir.constant(0 : i8) : i8 loc("op5")
    %29 = llvm.call @mgpuMemAlloc(%26, %21, %28) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op5")
    %30 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op5")
    %31 = llvm.insertvalue %29, %30[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %32 = llvm.insertvalue %29, %31[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %33 = llvm.mlir.constant(0 : index) : i64 loc("op5")
    %34 = llvm.insertvalue %33, %32[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %35 = llvm.insertvalue %22, %34[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %36 = llvm.insertvalue %23, %35[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %37 = llvm.mlir.constant(16 : index) : i64 loc("op6")
    %38 = llvm.mlir.zero : !llvm.ptr loc("op6")
    %39 = llvm.getelementptr %38[%37] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op6")
    %40 = llvm.ptrtoint %39 : !llvm.ptr to i64 loc("op6")
    %41 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op6")
    %42 = llvm.extractvalue %36[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op6")
    llvm.call @mgpuMemcpy(%42, %41, %40, %21) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%21) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%21) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("op7")  // hand-added
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("op7")  // hand-added
    llvm.return
  }

// ---- bug
  llvm.func @main() {
    %0 = llvm.mlir.constant(7 : i32) : i32
    %1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %2 = llvm.mlir.constant(16 : index) : i64 loc("op2")
    %3 = llvm.mlir.constant(1 : index) : i64 loc("op2")
    %4 = llvm.mlir.zero : !llvm.ptr loc("op2")
    %5 = llvm.getelementptr %4[%2] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op2")
    %6 = llvm.ptrtoint %5 : !llvm.ptr to i64 loc("op2")
    %7 = llvm.mlir.zero : !llvm.ptr loc("op2")
    %8 = llvm.mlir.constant(0 : i8) : i8 loc("op2")
    %9 = llvm.call @mgpuMemAlloc(%6, %1, %8) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op2")
    %10 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op2")
    %11 = llvm.insertvalue %9, %10[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %12 = llvm.insertvalue %9, %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %13 = llvm.mlir.constant(0 : index) : i64 loc("op2")
    %14 = llvm.insertvalue %13, %12[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %15 = llvm.insertvalue %2, %14[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %16 = llvm.insertvalue %3, %15[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op2")
    %17 = llvm.mlir.constant(16 : index) : i64 loc("op3")
    %18 = llvm.bitcast %0 : i32 to i32 loc("op3")
    %19 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemset32(%19, %18, %17, %1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op3")
    %21 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op4")
    %22 = llvm.mlir.constant(16 : index) : i64 loc("op5")
    %23 = llvm.mlir.constant(1 : index) : i64 loc("op5")
    %24 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %25 = llvm.getelementptr %24[%22] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op5")
    %26 = llvm.ptrtoint %25 : !llvm.ptr to i64 loc("op5")
    %27 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %28 = llvm.mlir.constant(0 : i8) : i8 loc("op5")
    %29 = llvm.call @mgpuMemAlloc(%26, %21, %28) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op5")
    %30 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op5")
    %31 = llvm.insertvalue %29, %30[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %32 = llvm.insertvalue %29, %31[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %33 = llvm.mlir.constant(0 : index) : i64 loc("op5")
    %34 = llvm.insertvalue %33, %32[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %35 = llvm.insertvalue %22, %34[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %36 = llvm.insertvalue %23, %35[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %37 = llvm.mlir.constant(16 : index) : i64 loc("op6")
    %38 = llvm.mlir.zero : !llvm.ptr loc("op6")
    %39 = llvm.getelementptr %38[%37] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op6")
    %40 = llvm.ptrtoint %39 : !llvm.ptr to i64 loc("op6")
    %41 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op6")
    %42 = llvm.extractvalue %36[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op6")
    llvm.call @mgpuMemcpy(%42, %41, %40, %21) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamSynchronize(%21) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamDestroy(%21) : (!llvm.ptr) -> () loc("op7")
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("op7")  // hand-added
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("op7")  // hand-added
    llvm.return
  }
