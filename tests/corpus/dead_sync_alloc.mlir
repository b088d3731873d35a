// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-19 lowering-complete: 12:14
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: The unused sync alloc is left unconverted by 19 but erased as dead by 22 (so 22 is
// WHY: complete); the async alloc is lowered with its one dependency's stream. 16 rejects it.
// A scratch buffer allocated synchronously and never used (left over after
// a refactoring), next to a correct async allocation.
func.func @prepare(%bytes: index) -> index {
  %scratch = gpu.alloc (%bytes) : memref<?xi8>
  %t0 = gpu.wait async
  %buf, %t1 = gpu.alloc async [%t0] (%bytes) : memref<?xi8>
  %t2 = gpu.dealloc async [%t1] %buf : memref<?xi8>
  gpu.wait [%t2]
  return %bytes : index
}
