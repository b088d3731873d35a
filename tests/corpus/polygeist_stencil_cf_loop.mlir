// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Polygeist output after scf-to-cf (llvm/Polygeist tools/cgeist/Test, time-stepping stencil): cf-form time loop launching a kernel and swapping buffers
// WHY: the time loop's sync launch makes and destroys its stream each step: summarized (holds); async-order
// WHY: unknown (order across iterations). 16 needs a serialized module.
module attributes {gpu.container_module} {
  gpu.module @__polygeist_gpu_module {
    gpu.func @_Z7jacobi1PfS_i(%in: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %bd = gpu.block_dim x
      %b = arith.muli %bx, %bd : index
      %i = arith.addi %b, %tx : index
      %v = memref.load %in[%i] : memref<?xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      gpu.return
    }
  }

  func.func @_Z6solvePfi(%host: memref<?xf32>, %steps: i32) attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %n = memref.dim %host, %c0 : memref<?xf32>
    %ni = arith.index_cast %n : index to i32
    %blocks = arith.ceildivui %n, %c128 : index
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %b, %t2 = gpu.alloc async [%t1] (%n) : memref<?xf32>
    %t3 = gpu.memcpy async [%t2] %a, %host : memref<?xf32>, memref<?xf32>
    gpu.wait [%t3]
    cf.br ^loop(%c0_i32, %a, %b : i32, memref<?xf32>, memref<?xf32>)
  ^loop(%it: i32, %src: memref<?xf32>, %dst: memref<?xf32>):
    %more = arith.cmpi slt, %it, %steps : i32
    cf.cond_br %more, ^body, ^exit
  ^body:
    gpu.launch_func @__polygeist_gpu_module::@_Z7jacobi1PfS_i blocks in (%blocks, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%src : memref<?xf32>, %dst : memref<?xf32>, %ni : i32)
    %next = arith.addi %it, %c1_i32 : i32
    cf.br ^loop(%next, %dst, %src : i32, memref<?xf32>, memref<?xf32>)
  ^exit:
    %t4 = gpu.wait async
    %t5 = gpu.memcpy async [%t4] %host, %src : memref<?xf32>, memref<?xf32>
    %t6 = gpu.dealloc async [%t5] %a : memref<?xf32>
    %t7 = gpu.dealloc async [%t6] %b : memref<?xf32>
    gpu.wait [%t7]
    return
  }
}
