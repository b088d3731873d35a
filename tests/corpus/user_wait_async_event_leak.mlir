// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=violated host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=violated host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=violated host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-16 event-no-leak: 16:11
// POINTS mlir-opt-19 event-no-leak: 16:11
// POINTS mlir-opt-22 event-no-leak: 16:11
// WHY: The event for gpu.wait async [%t1] is created where %t1 is defined but destroyed only in the taken
// WHY: branch: it leaks when %cond is false (upstream defect, README findings).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: user project (conditional prefetch in an offload runtime): gpu.wait async [%t] inside scf.if, the dependent stream joined back only when the branch is taken
func.func @maybe_prefetch(%cond: i1, %host: memref<512xf32>, %dev: memref<512xf32>) {
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %dev, %host : memref<512xf32>, memref<512xf32>
  scf.if %cond {
    %t2 = gpu.wait async [%t1]
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<512xf32>, memref<512xf32>
    gpu.wait [%t3]
  }
  gpu.wait [%t1]
  return
}
// DIFFERENTIAL mlir-opt-19: violated: with %cond0 false an event the lowered code creates stays live at exit, as event-no-leak=violated says
// DIFFERENTIAL mlir-opt-22: violated: with %cond0 false an event the lowered code creates stays live at exit, as event-no-leak=violated says
