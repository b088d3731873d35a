// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu.host_register -> mgpuMemHostRegisterMemRef(rank, descriptor, elem size), a real
// WHY: wrapper entry point on every version; host memref.alloc/dealloc -> malloc/free.
// Pin a host buffer (page-locked) before copying it to the device, the
// usual pattern for overlapping transfers.
func.func @pinned_upload(%n: index, %dev: memref<?xf32>) {
  %host = memref.alloc(%n) : memref<?xf32>
  %unranked = memref.cast %host : memref<?xf32> to memref<*xf32>
  gpu.host_register %unranked : memref<*xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %dev, %host : memref<?xf32>, memref<?xf32>
  gpu.wait [%t1]
  memref.dealloc %host : memref<?xf32>
  return
}
