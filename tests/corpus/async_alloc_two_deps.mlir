// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable async-order=unknown runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable async-order=unknown runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 17:15
// POINTS mlir-opt-22 lowering-complete: 17:15
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Token fan-in into gpu.alloc async [%a, %b]: 19/22 leave it unconverted and hand both
// WHY: streams to it through casts (escapes: the leaks cannot be shown). 16 rejects (2 deps).
// Token fan-in: the output buffer is allocated once both input copies
// (started on their own streams) are done.
func.func @gather(%ha: memref<64xf32>, %hb: memref<64xf32>, %da: memref<64xf32>, %db: memref<64xf32>) {
  %sa = gpu.wait async
  %ta = gpu.memcpy async [%sa] %da, %ha : memref<64xf32>, memref<64xf32>
  %sb = gpu.wait async
  %tb = gpu.memcpy async [%sb] %db, %hb : memref<64xf32>, memref<64xf32>
  %out, %tc = gpu.alloc async [%ta, %tb] () : memref<64xf32>
  %td = gpu.dealloc async [%tc] %out : memref<64xf32>
  gpu.wait [%td]
  return
}
