// Case 14: the host_shared flag of mgpuMemAlloc through memory and select.
// Source: a synchronous `gpu.alloc host_shared` (flag must be 1), freed by an
// async dealloc (the README's example; mlir-opt-19 lowers it completely).
// twin: mlir-opt-19 --gpu-to-llvm output with the i8 flag stored to an
// `llvm.alloca` slot and the value loaded back passed to mgpuMemAlloc.
// bug: the slot holds 0.
// bug:select: the slot holds `select %c, 1, 0`: wrong when %c is false.
// bug:overwrite: the slot is written 1, then 0: the load reads the last store.

// ---- source
func.func @main(%c: i1) {
  %m = gpu.alloc host_shared () : memref<16xf32> loc("op1")
  %t = gpu.wait async loc("op2")
  %t2 = gpu.dealloc async [%t] %m : memref<16xf32> loc("op3")
  gpu.wait [%t2] loc("op4")
  return
}

// ---- twin
  llvm.func @main(%arg0: i1) {
    %0 = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %1 = llvm.mlir.constant(1 : index) : i64 loc("op1")
    %2 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %3 = llvm.getelementptr %2[%0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %4 = llvm.ptrtoint %3 : !llvm.ptr to i64 loc("op1")
    %5 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %6 = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %slot = llvm.alloca %1 x i8 : (i64) -> !llvm.ptr loc("op1")
    %zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    llvm.store %6, %slot : i8, !llvm.ptr loc("op1")
    %flag = llvm.load %slot : !llvm.ptr -> i8 loc("op1")
    %7 = llvm.call @mgpuMemAlloc(%4, %5, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %8 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op1")
    %9 = llvm.insertvalue %7, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %10 = llvm.insertvalue %7, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %11 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %12 = llvm.insertvalue %11, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %13 = llvm.insertvalue %0, %12[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %14 = llvm.insertvalue %1, %13[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %15 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %16 = llvm.extractvalue %14[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemFree(%16, %15) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug
  llvm.func @main(%arg0: i1) {
    %0 = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %1 = llvm.mlir.constant(1 : index) : i64 loc("op1")
    %2 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %3 = llvm.getelementptr %2[%0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %4 = llvm.ptrtoint %3 : !llvm.ptr to i64 loc("op1")
    %5 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %6 = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %slot = llvm.alloca %1 x i8 : (i64) -> !llvm.ptr loc("op1")
    %zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    llvm.store %zero8, %slot : i8, !llvm.ptr loc("op1")
    %flag = llvm.load %slot : !llvm.ptr -> i8 loc("op1")
    %7 = llvm.call @mgpuMemAlloc(%4, %5, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %8 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op1")
    %9 = llvm.insertvalue %7, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %10 = llvm.insertvalue %7, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %11 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %12 = llvm.insertvalue %11, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %13 = llvm.insertvalue %0, %12[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %14 = llvm.insertvalue %1, %13[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %15 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %16 = llvm.extractvalue %14[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemFree(%16, %15) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:select
  llvm.func @main(%arg0: i1) {
    %0 = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %1 = llvm.mlir.constant(1 : index) : i64 loc("op1")
    %2 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %3 = llvm.getelementptr %2[%0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %4 = llvm.ptrtoint %3 : !llvm.ptr to i64 loc("op1")
    %5 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %6 = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %slot = llvm.alloca %1 x i8 : (i64) -> !llvm.ptr loc("op1")
    %zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    %sel = llvm.select %arg0, %6, %zero8 : i1, i8 loc("op1")
    llvm.store %sel, %slot : i8, !llvm.ptr loc("op1")
    %flag = llvm.load %slot : !llvm.ptr -> i8 loc("op1")
    %7 = llvm.call @mgpuMemAlloc(%4, %5, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %8 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op1")
    %9 = llvm.insertvalue %7, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %10 = llvm.insertvalue %7, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %11 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %12 = llvm.insertvalue %11, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %13 = llvm.insertvalue %0, %12[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %14 = llvm.insertvalue %1, %13[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %15 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %16 = llvm.extractvalue %14[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemFree(%16, %15) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }

// ---- bug:overwrite
  llvm.func @main(%arg0: i1) {
    %0 = llvm.mlir.constant(16 : index) : i64 loc("op1")
    %1 = llvm.mlir.constant(1 : index) : i64 loc("op1")
    %2 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %3 = llvm.getelementptr %2[%0] : (!llvm.ptr, i64) -> !llvm.ptr, f32 loc("op1")
    %4 = llvm.ptrtoint %3 : !llvm.ptr to i64 loc("op1")
    %5 = llvm.mlir.zero : !llvm.ptr loc("op1")
    %6 = llvm.mlir.constant(1 : i8) : i8 loc("op1")
    %slot = llvm.alloca %1 x i8 : (i64) -> !llvm.ptr loc("op1")
    %zero8 = llvm.mlir.constant(0 : i8) : i8 loc("op1")
    llvm.store %6, %slot : i8, !llvm.ptr loc("op1")
    llvm.store %zero8, %slot : i8, !llvm.ptr loc("op1")
    %flag = llvm.load %slot : !llvm.ptr -> i8 loc("op1")
    %7 = llvm.call @mgpuMemAlloc(%4, %5, %flag) : (i64, !llvm.ptr, i8) -> !llvm.ptr loc("op1")
    %8 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> loc("op1")
    %9 = llvm.insertvalue %7, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %10 = llvm.insertvalue %7, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %11 = llvm.mlir.constant(0 : index) : i64 loc("op1")
    %12 = llvm.insertvalue %11, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %13 = llvm.insertvalue %0, %12[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %14 = llvm.insertvalue %1, %13[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op1")
    %15 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op2")
    %16 = llvm.extractvalue %14[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>  loc("op3")
    llvm.call @mgpuMemFree(%16, %15) : (!llvm.ptr, !llvm.ptr) -> () loc("op3")
    llvm.call @mgpuStreamSynchronize(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.call @mgpuStreamDestroy(%15) : (!llvm.ptr) -> () loc("op4")
    llvm.return
  }
