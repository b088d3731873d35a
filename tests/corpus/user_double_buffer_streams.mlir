// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=violated lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=violated lowering-complete=violated
// POINTS mlir-opt-19 stream-no-leak: 31:11
// POINTS mlir-opt-19 runtime-contract: 55:5
// POINTS mlir-opt-19 lowering-complete: 32:16
// POINTS mlir-opt-22 stream-no-leak: 31:11
// POINTS mlir-opt-22 runtime-contract: 55:5
// POINTS mlir-opt-22 lowering-complete: 32:16
// WHY: Tokens through scf.for/scf.if are not converted (casts left); the final wait lowers to
// WHY: mgpuEventSynchronize/Destroy on the two streams, which are never destroyed (upstream defect).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: user project (double-buffered streaming of chunks, as in GPU-offload prototypes built on upstream gpu ops): two token chains alternating in an scf.for, scf.if on parity
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @process(%buf: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<256xf32>
      %e = math.exp %v : f32
      memref.store %e, %buf[%i] : memref<256xf32>
      gpu.return
    }
  }

  func.func @stream_chunks(%chunks: memref<2x256xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %sa = gpu.wait async
    %ba, %ta = gpu.alloc async [%sa] () : memref<256xf32>
    %sb = gpu.wait async
    %bb, %tb = gpu.alloc async [%sb] () : memref<256xf32>
    %ha = memref.alloc() : memref<256xf32>
    %hb = memref.alloc() : memref<256xf32>
    %ra, %rb = scf.for %i = %c0 to %c2 step %c1 iter_args(%xa = %ta, %xb = %tb) -> (!gpu.async.token, !gpu.async.token) {
      %odd = arith.remui %i, %c2 : index
      %isodd = arith.cmpi ne, %odd, %c0 : index
      %na, %nb = scf.if %isodd -> (!gpu.async.token, !gpu.async.token) {
        %u1 = gpu.memcpy async [%xb] %bb, %hb : memref<256xf32>, memref<256xf32>
        %u2 = gpu.launch_func async [%u1] @k::@process blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
            args(%bb : memref<256xf32>)
        scf.yield %xa, %u2 : !gpu.async.token, !gpu.async.token
      } else {
        %u1 = gpu.memcpy async [%xa] %ba, %ha : memref<256xf32>, memref<256xf32>
        %u2 = gpu.launch_func async [%u1] @k::@process blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
            args(%ba : memref<256xf32>)
        scf.yield %u2, %xb : !gpu.async.token, !gpu.async.token
      }
      scf.yield %na, %nb : !gpu.async.token, !gpu.async.token
    }
    %fa = gpu.dealloc async [%ra] %ba : memref<256xf32>
    %fb = gpu.dealloc async [%rb] %bb : memref<256xf32>
    gpu.wait [%fa, %fb]
    memref.dealloc %ha : memref<256xf32>
    memref.dealloc %hb : memref<256xf32>
    return
  }
}
// DIFFERENTIAL mlir-opt-19: violated: tokens through scf.for/scf.if are streams the final gpu.wait destroys as events (invalid-handle), as runtime-contract=violated says
// DIFFERENTIAL mlir-opt-22: violated: tokens through scf.for/scf.if are streams the final gpu.wait destroys as events (invalid-handle), as runtime-contract=violated says
