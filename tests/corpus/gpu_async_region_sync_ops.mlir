// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: func.func(gpu-async-region),gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu-async-region chains the sync memcpy/launch/memcpy on one token; gpu-to-llvm puts
// WHY: them on one stream, destroyed at the inserted wait before return. 16: no gpu.binary.
// Synchronous copies and launches between caller-owned buffers; with
// func.func(gpu-async-region) they become one token chain.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @negate(%buf: memref<32xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<32xi32>
      %zero = arith.constant 0 : i32
      %n = arith.subi %zero, %v : i32
      memref.store %n, %buf[%i] : memref<32xi32>
      gpu.return
    }
  }

  func.func @negate_copy(%dev: memref<32xi32>, %host: memref<32xi32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.memcpy %dev, %host : memref<32xi32>, memref<32xi32>
    gpu.launch_func @k::@negate blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%dev : memref<32xi32>)
    gpu.memcpy %host, %dev : memref<32xi32>, memref<32xi32>
    return
  }
}
