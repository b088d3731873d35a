// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=violated runtime-contract=violated lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=violated runtime-contract=violated lowering-complete=violated
// POINTS mlir-opt-19 stream-no-leak: 51:10
// POINTS mlir-opt-19 async-order: 53:11 61:13
// POINTS mlir-opt-19 runtime-contract: 67:7
// POINTS mlir-opt-19 lowering-complete: 55:16
// POINTS mlir-opt-22 stream-no-leak: 51:10
// POINTS mlir-opt-22 async-order: 53:11 61:13
// POINTS mlir-opt-22 runtime-contract: 67:7
// POINTS mlir-opt-22 lowering-complete: 55:16
// WHY: Token iter_args of scf.for are not converted (casts left); the host wait in the body lowers to
// WHY: mgpuEventSynchronize/Destroy on a stream, so the stream leaks and the host copy is unordered (upstream defect).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: IREE-style host schedule (IREE stream/HAL command buffer: transfer, dispatch x2, barrier per batch), written with upstream gpu ops
module attributes {gpu.container_module} {
  gpu.module @dispatches {
    gpu.func @matvec(%w: memref<64x64xf32>, %x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %row = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%s = %z) -> (f32) {
        %a = memref.load %w[%row, %k] : memref<64x64xf32>
        %b = memref.load %x[%k] : memref<64xf32>
        %p = arith.mulf %a, %b : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      memref.store %acc, %y[%row] : memref<64xf32>
      gpu.return
    }
    gpu.func @relu(%y: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %y[%i] : memref<64xf32>
      %z = arith.constant 0.0 : f32
      %g = arith.cmpf ogt, %v, %z : f32
      %r = arith.select %g, %v, %z : f32
      memref.store %r, %y[%i] : memref<64xf32>
      gpu.return
    }
  }

  func.func @run_batches(%w: memref<64x64xf32>, %xs: memref<4x64xf32>, %ys: memref<4x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %s = gpu.wait async
    %dw, %t1 = gpu.alloc async [%s] () : memref<64x64xf32>
    %t2 = gpu.memcpy async [%t1] %dw, %w : memref<64x64xf32>, memref<64x64xf32>
    %dx, %t3 = gpu.alloc async [%t2] () : memref<64xf32>
    %dy, %t4 = gpu.alloc async [%t3] () : memref<64xf32>
    %hx = memref.alloc() : memref<64xf32>
    %hy = memref.alloc() : memref<64xf32>
    %tend = scf.for %b = %c0 to %c4 step %c1 iter_args(%tok = %t4) -> (!gpu.async.token) {
      %sx = memref.subview %xs[%b, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      memref.copy %sx, %hx : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      %a1 = gpu.memcpy async [%tok] %dx, %hx : memref<64xf32>, memref<64xf32>
      %a2 = gpu.launch_func async [%a1] @dispatches::@matvec blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
          args(%dw : memref<64x64xf32>, %dx : memref<64xf32>, %dy : memref<64xf32>)
      %a3 = gpu.launch_func async [%a2] @dispatches::@relu blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
          args(%dy : memref<64xf32>)
      %a4 = gpu.memcpy async [%a3] %hy, %dy : memref<64xf32>, memref<64xf32>
      gpu.wait [%a4]
      %sy = memref.subview %ys[%b, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      memref.copy %hy, %sy : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %next = gpu.wait async
      scf.yield %next : !gpu.async.token
    }
    %e1 = gpu.dealloc async [%tend] %dw : memref<64x64xf32>
    %e2 = gpu.dealloc async [%e1] %dx : memref<64xf32>
    %e3 = gpu.dealloc async [%e2] %dy : memref<64xf32>
    gpu.wait [%e3]
    memref.dealloc %hx : memref<64xf32>
    memref.dealloc %hy : memref<64xf32>
    return
  }
}
// DIFFERENTIAL mlir-opt-19: violated: the body's gpu.wait [%a4] (67:7) synchronizes a stream as an event (invalid-handle), so the host copy into %ys (69:7) reads %hy before the device copy lands, as async-order=violated and runtime-contract=violated say
// DIFFERENTIAL mlir-opt-22: violated: the body's gpu.wait [%a4] (67:7) synchronizes a stream as an event (invalid-handle), so the host copy into %ys (69:7) reads %hy before the device copy lands, as async-order=violated and runtime-contract=violated say
