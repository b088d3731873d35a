// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 13:15
// POINTS mlir-opt-22 lowering-complete: 13:15
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu.alloc async with 0 dependencies is left unconverted (19, 22); the memcpy and the
// WHY: mgpuEvent* calls get its token through a cast, a value nobody can follow. 16 rejects.
// `gpu.alloc async` with no dependency: the allocation starts a new token
// chain by itself.
func.func @upload(%host: memref<1024xf16>) -> memref<1024xf16> {
  %dev, %t0 = gpu.alloc async () : memref<1024xf16>
  %t1 = gpu.memcpy async [%t0] %dev, %host : memref<1024xf16>, memref<1024xf16>
  gpu.wait [%t1]
  return %dev : memref<1024xf16>
}
