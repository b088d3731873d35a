// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=unknown host-shared-flag=unknown async-order=unknown runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=unknown host-shared-flag=unknown async-order=unknown runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 19:11
// POINTS mlir-opt-22 lowering-complete: 19:11
// WHY: gpu-to-llvm does not convert the scf.for carrying !gpu.async.token (casts and token iter_args left,
// WHY: upstream limitation as in scf_for_token_iter_args.mlir). 16 needs a serialized module.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Intel mlir-extensions (test/Integration/Dialect/Gpu/*.mlir): host scf.for over tiles, one async launch per tile chained through iter_args
module @eltwise attributes {gpu.container_module} {
  func.func @scale_tiles(%host: memref<1024xf32>, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<1024xf32>
    %t2 = gpu.memcpy async [%t1] %dev, %host : memref<1024xf32>, memref<1024xf32>
    %tl = scf.for %tile = %c0 to %c8 step %c1 iter_args(%tok = %t2) -> (!gpu.async.token) {
      %off = arith.muli %tile, %c128 : index
      %tn = gpu.launch_func async [%tok] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
          args(%dev : memref<1024xf32>, %off : index, %f : f32)
      scf.yield %tn : !gpu.async.token
    }
    %t3 = gpu.memcpy async [%tl] %host, %dev : memref<1024xf32>, memref<1024xf32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<1024xf32>
    gpu.wait [%t4]
    return
  }

  gpu.module @kernels {
    gpu.func @scale(%buf: memref<1024xf32>, %off: index, %f: f32) kernel {
      %tx = gpu.thread_id x
      %i = arith.addi %off, %tx : index
      %v = memref.load %buf[%i] : memref<1024xf32>
      %m = arith.mulf %v, %f : f32
      memref.store %m, %buf[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
// DIFFERENTIAL mlir-opt-19: violated: the token out of the unconverted scf.for is a stream the final gpu.wait destroys as an event (invalid-handle): the control-flow token defect of DESIGN.md
// DIFFERENTIAL mlir-opt-22: violated: the token out of the unconverted scf.for is a stream the final gpu.wait destroys as an event (invalid-handle): the control-flow token defect of DESIGN.md
