// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: PR #69969's question: 19 and 22 lower the sync host_shared alloc to
// WHY: mgpuMemAlloc(size, llvm.mlir.zero, 1) (no stream); 16 refuses any sync/host_shared alloc.
// The shape of upstream PR #69969's test: a synchronous host_shared
// allocation (no async dependency to take a stream from), written by the
// host, incremented by a kernel, read back after a host wait.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @increment(%buf: memref<3xi64>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<3xi64>
      %one = arith.constant 1 : i64
      %w = arith.addi %v, %one : i64
      memref.store %w, %buf[%i] : memref<3xi64>
      gpu.return
    }
  }

  func.func @main() -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %init = arith.constant 41 : i64
    %shared = gpu.alloc host_shared () : memref<3xi64>
    memref.store %init, %shared[%c0] : memref<3xi64>
    memref.store %init, %shared[%c1] : memref<3xi64>
    memref.store %init, %shared[%c2] : memref<3xi64>
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@increment
        blocks in (%c1, %c1, %c1) threads in (%c3, %c1, %c1)
        args(%shared : memref<3xi64>)
    gpu.wait [%t1]
    %r = memref.load %shared[%c2] : memref<3xi64>
    %t2 = gpu.wait async
    %t3 = gpu.dealloc async [%t2] %shared : memref<3xi64>
    gpu.wait [%t3]
    return %r : i64
  }
}
