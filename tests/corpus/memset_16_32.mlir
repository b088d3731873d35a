// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: f16 -> mgpuMemset16, f32 and i32 -> mgpuMemset32, one stream, destroyed once (19, 22).
// WHY: 16 has no 16-bit memset: rejected.
// Clearing 16- and 32-bit buffers on one stream, then freeing them.
func.func @reset(%half_zero: f16, %word_zero: f32, %neg1: i32) {
  %t0 = gpu.wait async
  %h, %t1 = gpu.alloc async [%t0] () : memref<1024xf16>
  %w, %t2 = gpu.alloc async [%t1] () : memref<256xf32>
  %k, %t3 = gpu.alloc async [%t2] () : memref<64xi32>
  %t4 = gpu.memset async [%t3] %h, %half_zero : memref<1024xf16>, f16
  %t5 = gpu.memset async [%t4] %w, %word_zero : memref<256xf32>, f32
  %t6 = gpu.memset async [%t5] %k, %neg1 : memref<64xi32>, i32
  %t7 = gpu.dealloc async [%t6] %h : memref<1024xf16>
  %t8 = gpu.dealloc async [%t7] %w : memref<256xf32>
  %t9 = gpu.dealloc async [%t8] %k : memref<64xi32>
  gpu.wait [%t9]
  return
}
