// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=not-applicable runtime-contract=holds lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 43:11
// POINTS mlir-opt-22 lowering-complete: 43:11
// WHY: cudaMalloc/cudaMemcpy/cudaFree raised to sync gpu.alloc/memcpy/dealloc: 19/22 gpu-to-llvm leaves them
// WHY: unconverted and exits 0 (upstream limitation), so async-order has no lowered work to order. 16 needs a serialized module.
// PIPELINE: gpu-kernel-outlining,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Polygeist cgeist --emit-cuda output (llvm/Polygeist tools/cgeist/Test/Verification/*.cu, vecAdd): i32 sizes index_cast, ceildiv grid, gpu.launch in the device stub
module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64"} {
  func.func @_Z6vecAddPfS_S_i(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: i32) attributes {llvm.linkage = #llvm.linkage<external>} {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c256_i32 = arith.constant 256 : i32
    %c255_i32 = arith.constant 255 : i32
    %0 = arith.addi %n, %c255_i32 : i32
    %1 = arith.divsi %0, %c256_i32 : i32
    %blocks = arith.index_cast %1 : i32 to index
    %nidx = arith.index_cast %n : i32 to index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %ok = arith.cmpi slt, %i, %nidx : index
      scf.if %ok {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.terminator
    }
    return
  }

  func.func @main() -> i32 attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0_i32 = arith.constant 0 : i32
    %n = arith.constant 4096 : i32
    %nidx = arith.index_cast %n : i32 to index
    %ha = memref.alloc(%nidx) : memref<?xf32>
    %hc = memref.alloc(%nidx) : memref<?xf32>
    %da = gpu.alloc (%nidx) : memref<?xf32>
    %db = gpu.alloc (%nidx) : memref<?xf32>
    %dc = gpu.alloc (%nidx) : memref<?xf32>
    gpu.memcpy %da, %ha : memref<?xf32>, memref<?xf32>
    gpu.memcpy %db, %ha : memref<?xf32>, memref<?xf32>
    call @_Z6vecAddPfS_S_i(%da, %db, %dc, %n) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32) -> ()
    gpu.memcpy %hc, %dc : memref<?xf32>, memref<?xf32>
    gpu.dealloc %da : memref<?xf32>
    gpu.dealloc %db : memref<?xf32>
    gpu.dealloc %dc : memref<?xf32>
    memref.dealloc %ha : memref<?xf32>
    memref.dealloc %hc : memref<?xf32>
    return %c0_i32 : i32
  }
}
