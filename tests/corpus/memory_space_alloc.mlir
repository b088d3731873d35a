// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: *=not-applicable lowering-no-crash=violated
// EXPECT mlir-opt-22: *=not-applicable lowering-no-crash=violated
// POINTS mlir-opt-19 lowering-no-crash: 13:13
// POINTS mlir-opt-22 lowering-no-crash: 13:13
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu.alloc of memref<4xf32, 1>: 19/22 build an invalid descriptor ('llvm.insertvalue'
// WHY: type mismatch, the verifier fails after gpu-to-llvm: invalid IR); 16 lowers it correctly.
// Allocating directly in memory space 1.
func.func @alloc_global(%host: memref<4xf32>) {
  %s = gpu.wait async
  %d, %t1 = gpu.alloc async [%s] () : memref<4xf32, 1>
  %t2 = gpu.memcpy async [%t1] %d, %host : memref<4xf32, 1>, memref<4xf32>
  %t3 = gpu.dealloc async [%t2] %d : memref<4xf32, 1>
  gpu.wait [%t3]
  return
}
