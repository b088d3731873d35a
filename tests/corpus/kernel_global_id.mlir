// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: *=not-applicable lowering-no-crash=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-19 mlir-opt-22
// WHY: convert-gpu-to-nvvm in 19 aborts on gpu.global_id ('index.mul' not loaded: SIGABRT);
// WHY: 22 lowers it. 16 does not parse arith.maximumf.
// gpu.global_id in a kernel: the one-op spelling of block_id * block_dim + thread_id.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @clamp(%buf: memref<?xf32>, %n: index, %lo: f32, %hi: f32) kernel {
      %i = gpu.global_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %buf[%i] : memref<?xf32>
        %a = arith.maximumf %v, %lo : f32
        %b = arith.minimumf %a, %hi : f32
        memref.store %b, %buf[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @clamp(%buf: memref<?xf32>, %lo: f32, %hi: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %buf, %c0 : memref<?xf32>
    %g = arith.ceildivui %n, %c128 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@clamp blocks in (%g, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%buf : memref<?xf32>, %n : index, %lo : f32, %hi : f32)
    gpu.wait [%t]
    return
  }
}
