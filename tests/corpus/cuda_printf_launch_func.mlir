// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: *=not-applicable
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19
// SHAPE: LLVM CUDA integration test (mlir/test/Integration/GPU/CUDA/printf.mlir): gpu.printf kernel, no buffers
// A kernel that only prints its thread id; the host launches it and returns.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %is0 = arith.cmpi eq, %tx, %c0 : index
      scf.if %is0 {
        gpu.printf "Hello from %lld\n" %tx : index
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@hello blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
    return
  }
}
