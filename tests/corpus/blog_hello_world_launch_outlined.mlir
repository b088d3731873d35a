// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 26:5
// POINTS mlir-opt-22 lowering-complete: 26:5
// WHY: 16 refuses the sync host_shared gpu.alloc; 19/22 lower it to mgpuMemAlloc(size, null, 1) (no stream, flag kept),
// WHY: outline and launch the kernel without a stream, and leave the sync gpu.dealloc unconverted (exit 0).
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: a "GPU dialect Hello World" blog tutorial (MLIR, LLVM & Pointers, 2025): gpu.launch written inline with gpu.printf of the thread id, a host_shared buffer each thread writes, outlined by gpu-kernel-outlining, the host reads the buffer back with vector.print
module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %out = gpu.alloc host_shared () : memref<4xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      "gpu.printf"(%tx) {format = "Hello from thread %lld\0A"} : (index) -> ()
      %v = arith.index_cast %tx : index to i32
      memref.store %v, %out[%tx] : memref<4xi32>
      gpu.terminator
    }
    %r = memref.load %out[%c0] : memref<4xi32>
    vector.print %r : i32
    gpu.dealloc %out : memref<4xi32>
    return
  }
}
