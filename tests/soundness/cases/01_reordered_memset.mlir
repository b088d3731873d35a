// Case 01: async-order, reordered calls on one stream.
// Source: alloc -> alloc -> memset -> memcpy (the memcpy depends on the
// memset's token), all on the stream of one `gpu.wait async`.
// twin: mlir-opt-19 --gpu-to-llvm output, verbatim (declarations dropped).
// bug: the mgpuMemset32 call moved below the mgpuMemcpy call: on the one
// stream the copy now runs before the memset it depends on.

// ---- source
func.func @main() {
  %cst = arith.constant 7 : i32
  %t0 = gpu.wait async loc("op1")
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xi32> loc("op2")
  %b, %t2 = gpu.alloc async [%t1] () : memref<16xi32> loc("op3")
  %t3 = gpu.memset async [%t2] %a, %cst : memref<16xi32>, i32 loc("op4")
  %t4 = gpu.memcpy async [%t3] %b, %a : memref<16xi32>, memref<16xi32> loc("op5")
  gpu.wait [%t4] loc("op6")
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
    %18 = llvm.mlir.constant(1 : index) : i64 loc("op3")
    %19 = llvm.mlir.zero : !llvm.ptr loc("op3")
    %20 = llvm.getelementptr %19[%17] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op3")
    %21 = llvm.ptrtoint %20 : !llvm.ptr to i64 loc("op3")
    %22 = llvm.mlir.zero : !llvm.ptr loc("op3")
    %23 = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %24 = llvm.call @mgpuMemAlloc(%21, %1, %23) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    %25 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op3")
    %26 = llvm.insertvalue %24, %25[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %27 = llvm.insertvalue %24, %26[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %28 = llvm.mlir.constant(0 : index) : i64 loc("op3")
    %29 = llvm.insertvalue %28, %27[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %30 = llvm.insertvalue %17, %29[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %31 = llvm.insertvalue %18, %30[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %32 = llvm.mlir.constant(16 : index) : i64 loc("op4")
    %33 = llvm.bitcast %0 : i32 to i32 loc("op4")
    %34 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op4")
    llvm.call @mgpuMemset32(%34, %33, %32, %1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")
    %35 = llvm.mlir.constant(16 : index) : i64 loc("op5")
    %36 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %37 = llvm.getelementptr %36[%35] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op5")
    %38 = llvm.ptrtoint %37 : !llvm.ptr to i64 loc("op5")
    %39 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %40 = llvm.extractvalue %31[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    llvm.call @mgpuMemcpy(%40, %39, %38, %1) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("op6")
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
    %18 = llvm.mlir.constant(1 : index) : i64 loc("op3")
    %19 = llvm.mlir.zero : !llvm.ptr loc("op3")
    %20 = llvm.getelementptr %19[%17] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op3")
    %21 = llvm.ptrtoint %20 : !llvm.ptr to i64 loc("op3")
    %22 = llvm.mlir.zero : !llvm.ptr loc("op3")
    %23 = llvm.mlir.constant(0 : i8) : i8 loc("op3")
    %24 = llvm.call @mgpuMemAlloc(%21, %1, %23) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op3")
    %25 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op3")
    %26 = llvm.insertvalue %24, %25[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %27 = llvm.insertvalue %24, %26[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %28 = llvm.mlir.constant(0 : index) : i64 loc("op3")
    %29 = llvm.insertvalue %28, %27[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %30 = llvm.insertvalue %17, %29[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %31 = llvm.insertvalue %18, %30[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    %32 = llvm.mlir.constant(16 : index) : i64 loc("op4")
    %33 = llvm.bitcast %0 : i32 to i32 loc("op4")
    %34 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op4")
    %35 = llvm.mlir.constant(16 : index) : i64 loc("op5")
    %36 = llvm.mlir.zero : !llvm.ptr loc("op5")
    %37 = llvm.getelementptr %36[%35] : (!llvm.ptr, i64) -> !llvm.ptr, i32 loc("op5")
    %38 = llvm.ptrtoint %37 : !llvm.ptr to i64 loc("op5")
    %39 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    %40 = llvm.extractvalue %31[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op5")
    llvm.call @mgpuMemcpy(%40, %39, %38, %1) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> () loc("op5")
    llvm.call @mgpuMemset32(%34, %33, %32, %1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> () loc("op4")  // moved below the memcpy
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("op6")
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("op6")
    llvm.return
  }
