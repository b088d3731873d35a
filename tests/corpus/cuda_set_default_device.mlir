// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM GPUToLLVM/CUDA runner usage (gpu.set_default_device, mgpuSetDefaultDevice): choose the device, then an async round trip
func.func @run_on_device(%dev: i32, %host: memref<128xf32>, %zero: f32) {
  gpu.set_default_device %dev
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<128xf32>
  %t2 = gpu.memset async [%t1] %d, %zero : memref<128xf32>, f32
  %t3 = gpu.memcpy async [%t2] %host, %d : memref<128xf32>, memref<128xf32>
  %t4 = gpu.dealloc async [%t3] %d : memref<128xf32>
  gpu.wait [%t4]
  return
}
