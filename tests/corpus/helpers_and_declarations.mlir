// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Each helper creates and destroys its own stream; the func.func private declarations
// WHY: (external calls) get only an i32 and a host buffer, never a handle.
// Host code split into helpers: an external logger declared `private`,
// a helper that allocates and returns a device buffer, one that frees it.
func.func private @log_stage(i32)
func.func private @checksum(memref<?xf32>) -> f32

func.func @device_buffer(%n: index) -> memref<?xf32> {
  %t0 = gpu.wait async
  %buf, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
  gpu.wait [%t1]
  return %buf : memref<?xf32>
}

func.func @release(%buf: memref<?xf32>) {
  %t0 = gpu.wait async
  %t1 = gpu.dealloc async [%t0] %buf : memref<?xf32>
  gpu.wait [%t1]
  return
}

func.func @roundtrip(%host: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %stage_alloc = arith.constant 1 : i32
  %stage_copy = arith.constant 2 : i32
  %n = memref.dim %host, %c0 : memref<?xf32>
  call @log_stage(%stage_alloc) : (i32) -> ()
  %dev = call @device_buffer(%n) : (index) -> memref<?xf32>
  call @log_stage(%stage_copy) : (i32) -> ()
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %dev, %host : memref<?xf32>, memref<?xf32>
  %t2 = gpu.memcpy async [%t1] %host, %dev : memref<?xf32>, memref<?xf32>
  gpu.wait [%t2]
  call @release(%dev) : (memref<?xf32>) -> ()
  %sum = call @checksum(%host) : (memref<?xf32>) -> f32
  return %sum : f32
}
