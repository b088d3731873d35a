// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @alloc_and_dealloc_in_memory_space
func.func @alloc_and_dealloc_in_memory_space(%size : index, %other : memref<?xf32, 1>) -> memref<?xf32, 1> {
  // CHECK: %[[stream:.*]] = llvm.call @mgpuStreamCreate()
  %t0 = gpu.wait async
  // CHECK: %[[ptr:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[stream]], %{{.*}})
  // CHECK-NEXT: llvm.addrspacecast %[[ptr]] : !llvm.ptr to !llvm.ptr<1>
  %memref, %t1 = gpu.alloc async [%t0] (%size) : memref<?xf32, 1>
  // CHECK: %[[other:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
  // CHECK-NEXT: %[[cast:.*]] = llvm.addrspacecast %[[other]] : !llvm.ptr<1> to !llvm.ptr
  // CHECK-NEXT: llvm.call @mgpuMemFree(%[[cast]], %[[stream]])
  %t2 = gpu.dealloc async [%t1] %other : memref<?xf32, 1>
  gpu.wait [%t2]
  return %memref : memref<?xf32, 1>
}
