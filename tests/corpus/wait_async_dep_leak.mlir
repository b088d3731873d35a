// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-16 stream-no-leak: 15:9
// POINTS mlir-opt-19 stream-no-leak: 15:9
// POINTS mlir-opt-22 stream-no-leak: 15:9
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu.wait async [%t2] records an event on the first stream and creates a second one;
// WHY: the first stream (from the gpu.wait async at 15:9) is never destroyed, on 16, 19 and 22.
// Stream hand-off through `gpu.wait async [%t]`: upstream records an event
// on the first stream, creates a second stream that waits for it, and never
// destroys the first one.
func.func @stage(%src: memref<512xf32>, %dst: memref<512xf32>) {
  %s0 = gpu.wait async
  %buf, %t1 = gpu.alloc async [%s0] () : memref<512xf32>
  %t2 = gpu.memcpy async [%t1] %buf, %src : memref<512xf32>, memref<512xf32>
  %t3 = gpu.wait async [%t2]
  %t4 = gpu.memcpy async [%t3] %dst, %buf : memref<512xf32>, memref<512xf32>
  %t5 = gpu.dealloc async [%t4] %buf : memref<512xf32>
  gpu.wait [%t5]
  return
}
// DIFFERENTIAL mlir-opt-19: violated: gpu.wait async [%t] never destroys %t's stream: live at exit, as stream-no-leak=violated says
// DIFFERENTIAL mlir-opt-22: violated: gpu.wait async [%t] never destroys %t's stream: live at exit, as stream-no-leak=violated says
