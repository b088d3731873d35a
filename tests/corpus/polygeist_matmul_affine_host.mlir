// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: lower-affine,gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Polygeist cgeist -raise-scf-to-affine output (gemm.cu demos): affine host loops, async device buffers, launch_func of the outlined kernel
module attributes {gpu.container_module, llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  gpu.module @__polygeist_gpu_module {
    gpu.func @_Z13matmul_kernelPfS_S_(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %r = gpu.block_id x
      %col = gpu.thread_id x
      %row = arith.muli %r, %c64 : index
      %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%s = %zero) -> (f32) {
        %ia = arith.addi %row, %k : index
        %kr = arith.muli %k, %c64 : index
        %ib = arith.addi %kr, %col : index
        %a = memref.load %A[%ia] : memref<?xf32>
        %b = memref.load %B[%ib] : memref<?xf32>
        %p = arith.mulf %a, %b : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      %ic = arith.addi %row, %col : index
      memref.store %acc, %C[%ic] : memref<?xf32>
      gpu.return
    }
  }

  func.func @main() -> i32 attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0_i32 = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c4096 = arith.constant 4096 : index
    %one = arith.constant 1.0 : f32
    %hA = memref.alloc(%c4096) : memref<?xf32>
    %hB = memref.alloc(%c4096) : memref<?xf32>
    %hC = memref.alloc(%c4096) : memref<?xf32>
    affine.for %i = 0 to 4096 {
      affine.store %one, %hA[%i] : memref<?xf32>
      affine.store %one, %hB[%i] : memref<?xf32>
    }
    %t0 = gpu.wait async
    %dA, %t1 = gpu.alloc async [%t0] (%c4096) : memref<?xf32>
    %dB, %t2 = gpu.alloc async [%t1] (%c4096) : memref<?xf32>
    %dC, %t3 = gpu.alloc async [%t2] (%c4096) : memref<?xf32>
    %t4 = gpu.memcpy async [%t3] %dA, %hA : memref<?xf32>, memref<?xf32>
    %t5 = gpu.memcpy async [%t4] %dB, %hB : memref<?xf32>, memref<?xf32>
    %t6 = gpu.launch_func async [%t5] @__polygeist_gpu_module::@_Z13matmul_kernelPfS_S_
        blocks in (%c64, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%dA : memref<?xf32>, %dB : memref<?xf32>, %dC : memref<?xf32>)
    %t7 = gpu.memcpy async [%t6] %hC, %dC : memref<?xf32>, memref<?xf32>
    %t8 = gpu.dealloc async [%t7] %dA : memref<?xf32>
    %t9 = gpu.dealloc async [%t8] %dB : memref<?xf32>
    %t10 = gpu.dealloc async [%t9] %dC : memref<?xf32>
    gpu.wait [%t10]
    %sum = affine.for %i = 0 to 4096 iter_args(%s = %one) -> (f32) {
      %v = affine.load %hC[%i] : memref<?xf32>
      %n = arith.addf %s, %v : f32
      affine.yield %n : f32
    }
    memref.dealloc %hA : memref<?xf32>
    memref.dealloc %hB : memref<?xf32>
    memref.dealloc %hC : memref<?xf32>
    return %c0_i32 : i32
  }
}
