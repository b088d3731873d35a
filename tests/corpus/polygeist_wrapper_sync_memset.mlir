// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 15:8
// POINTS mlir-opt-22 lowering-complete: 15:8
// WHY: Sync non-shared gpu.alloc, sync gpu.memset/memcpy/dealloc left unconverted by 19/22 gpu-to-llvm while
// WHY: mlir-opt exits 0 (upstream limitation); 16 lowers them all (mgpuMemAlloc(size, stream)).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Polygeist cudaMalloc/cudaMemset/cudaFree translation (llvm/Polygeist lib/polygeist/Passes ConvertPolygeistToLLVM inputs): sync gpu.alloc, gpu.memset, gpu.dealloc
func.func @_Z10zero_fillPfi(%n: i32) -> f32 attributes {llvm.linkage = #llvm.linkage<external>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %nidx = arith.index_cast %n : i32 to index
  %d = gpu.alloc (%nidx) : memref<?xf32>
  gpu.memset %d, %zero : memref<?xf32>, f32
  %h = memref.alloc(%nidx) : memref<?xf32>
  gpu.memcpy %h, %d : memref<?xf32>, memref<?xf32>
  gpu.dealloc %d : memref<?xf32>
  %v = memref.load %h[%c0] : memref<?xf32>
  memref.dealloc %h : memref<?xf32>
  return %v : f32
}
