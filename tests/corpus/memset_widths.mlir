// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=holds runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=holds runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 18:9
// POINTS mlir-opt-22 lowering-complete: 18:9
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: 19/22 lower 16- and 32-bit memsets only: the i8 memset is left as gpu.memset and the
// WHY: later memsets run on the cast of its token. 16 lowers only 32-bit memsets: rejected.
// Clearing buffers of several element widths before a run.
func.func @clear_all(%n: index, %byte: i8, %half: f16, %word: f32, %idx: i32, %b: bf16) {
  %t0 = gpu.wait async
  %mask, %t1 = gpu.alloc async [%t0] (%n) : memref<?xi8>
  %hist, %t2 = gpu.alloc async [%t1] (%n) : memref<?xf16>
  %acc, %t3 = gpu.alloc async [%t2] () : memref<16xf32>
  %ids, %t4 = gpu.alloc async [%t3] () : memref<8xi32>
  %wts, %t5 = gpu.alloc async [%t4] () : memref<8xbf16>
  %t6 = gpu.memset async [%t5] %mask, %byte : memref<?xi8>, i8
  %t7 = gpu.memset async [%t6] %hist, %half : memref<?xf16>, f16
  %t8 = gpu.memset async [%t7] %acc, %word : memref<16xf32>, f32
  %t9 = gpu.memset async [%t8] %ids, %idx : memref<8xi32>, i32
  %t10 = gpu.memset async [%t9] %wts, %b : memref<8xbf16>, bf16
  gpu.wait [%t10]
  return
}
