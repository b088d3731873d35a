// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-16 stream-no-leak: 15:10
// POINTS mlir-opt-19 stream-no-leak: 15:10
// POINTS mlir-opt-22 stream-no-leak: 15:10
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Only the then-branch (%verbose = true) hands off with gpu.wait async [%t1]; its first
// WHY: stream (15:10) is never destroyed on that path; the else-branch is clean.
// Debug-only staging copy: when %verbose is set, the result is handed to a
// second stream with `gpu.wait async [%t]`, which upstream never destroys.
func.func @maybe_dump(%verbose: i1, %dev: memref<256xf32>, %dump: memref<256xf32>) {
  scf.if %verbose {
    %s = gpu.wait async
    %t1 = gpu.memcpy async [%s] %dump, %dev : memref<256xf32>, memref<256xf32>
    %t2 = gpu.wait async [%t1]
    gpu.wait [%t2]
  } else {
    %s = gpu.wait async
    %zero = arith.constant 0.0 : f32
    %t1 = gpu.memset async [%s] %dump, %zero : memref<256xf32>, f32
    gpu.wait [%t1]
  }
  return
}
// DIFFERENTIAL mlir-opt-19: violated: with %cond0 true a stream the lowered code creates stays live at exit, as stream-no-leak=violated says
// DIFFERENTIAL mlir-opt-22: violated: with %cond0 true a stream the lowered code creates stays live at exit, as stream-no-leak=violated says
