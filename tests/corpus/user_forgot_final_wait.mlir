// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: user project (a GPU-offload prototype's upload helper): host wait on one chain, a second chain's copy-back never awaited before the host frees the buffer
func.func @roundtrip(%host: memref<4096xf32>, %out: memref<4096xf32>) {
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<4096xf32>
  %t2 = gpu.memcpy async [%t1] %d, %host : memref<4096xf32>, memref<4096xf32>
  gpu.wait [%t2]
  %s = gpu.wait async
  %t3 = gpu.memcpy async [%s] %out, %d : memref<4096xf32>, memref<4096xf32>
  %t4 = gpu.dealloc async [%t3] %d : memref<4096xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %out[%c0] : memref<4096xf32>
  memref.store %v, %host[%c0] : memref<4096xf32>
  return
}
