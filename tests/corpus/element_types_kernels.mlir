// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: bf16/f16/i8/index buffers as kernel arguments, an f32 output allocation: one stream
// WHY: chain, destroyed once. 16: no gpu.binary.
// Mixed precision: bf16 weights widened to f32, f16 activations, an i8 mask
// and an index buffer of gather offsets.
module attributes {gpu.container_module} {
  gpu.module @mixed {
    gpu.func @gather_scale(%w: memref<?xbf16>, %act: memref<?xf16>, %mask: memref<?xi8>,
                           %offsets: memref<?xindex>, %out: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %j = memref.load %offsets[%i] : memref<?xindex>
        %wb = memref.load %w[%j] : memref<?xbf16>
        %wf = arith.extf %wb : bf16 to f32
        %ah = memref.load %act[%i] : memref<?xf16>
        %af = arith.extf %ah : f16 to f32
        %m = memref.load %mask[%i] : memref<?xi8>
        %zero8 = arith.constant 0 : i8
        %keep = arith.cmpi ne, %m, %zero8 : i8
        %p = arith.mulf %wf, %af : f32
        %zero = arith.constant 0.0 : f32
        %r = arith.select %keep, %p, %zero : f32
        memref.store %r, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @gather_scale(%w: memref<?xbf16>, %act: memref<?xf16>, %mask: memref<?xi8>,
                          %offsets: memref<?xindex>, %host_out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %n = memref.dim %act, %c0 : memref<?xf16>
    %g = arith.ceildivui %n, %c64 : index
    %s = gpu.wait async
    %out, %t1 = gpu.alloc async [%s] (%n) : memref<?xf32>
    %t2 = gpu.launch_func async [%t1] @mixed::@gather_scale blocks in (%g, %c1, %c1)
        threads in (%c64, %c1, %c1)
        args(%w : memref<?xbf16>, %act : memref<?xf16>, %mask : memref<?xi8>,
             %offsets : memref<?xindex>, %out : memref<?xf32>, %n : index)
    %t3 = gpu.memcpy async [%t2] %host_out, %out : memref<?xf32>, memref<?xf32>
    %t4 = gpu.dealloc async [%t3] %out : memref<?xf32>
    gpu.wait [%t4]
    return
  }
}
