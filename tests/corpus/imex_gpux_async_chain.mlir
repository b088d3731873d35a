// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=violated sync-alloc-no-stream=not-applicable stream-no-leak=not-applicable stream-no-use-after-destroy=not-applicable event-no-leak=not-applicable host-shared-flag=not-applicable async-order=not-applicable runtime-contract=not-applicable lowering-complete=not-applicable
// EXPECT mlir-opt-22: lowering-no-crash=violated sync-alloc-no-stream=not-applicable stream-no-leak=not-applicable stream-no-use-after-destroy=not-applicable event-no-leak=not-applicable host-shared-flag=not-applicable async-order=not-applicable runtime-contract=not-applicable lowering-complete=not-applicable
// POINTS mlir-opt-19 lowering-no-crash: 15:14
// POINTS mlir-opt-22 lowering-no-crash: 15:14
// WHY: 19: gpu-to-llvm lowers gpu.alloc of memref<13xf32, 1> with mgpuMemAlloc's !llvm.ptr inserted into a ptr<1> descriptor
// WHY: (invalid IR, upstream bug, same on 22); 16 rejects the sync gpu.alloc (failed to legalize).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Intel mlir-extensions (mlir/test/Transforms/gpu-to-gpux.mlir input): async alloc/dealloc chains, a sync alloc and a host_shared alloc in one function
func.func @alloc_mix() {
  %m0 = gpu.alloc () : memref<13xf32, 1>
  gpu.dealloc %m0 : memref<13xf32, 1>
  %t0 = gpu.wait async
  %m1, %t1 = gpu.alloc async [%t0] () : memref<13xf32, 1>
  %t2 = gpu.dealloc async [%t1] %m1 : memref<13xf32, 1>
  gpu.wait [%t2]
  %m2 = gpu.alloc host_shared () : memref<13xf32, 1>
  gpu.dealloc %m2 : memref<13xf32, 1>
  return
}
