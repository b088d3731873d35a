// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=violated runtime-contract=violated lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=violated runtime-contract=violated lowering-complete=holds
// POINTS mlir-opt-19 stream-no-leak: 24:10
// POINTS mlir-opt-22 stream-no-leak: 24:10
// WHY: The token returned by @upload is a stream; the host wait in @download is on a block argument, so it
// WHY: lowers to mgpuEventSynchronize/Destroy and the stream created at 18:10 is never destroyed (upstream defect).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Toy tutorial extended to the GPU (Toy ch6/ch7 lowered program + a GPU backend): upload/compute/download helpers, each called once from main
module attributes {gpu.container_module} {
  gpu.module @toy_kernels {
    gpu.func @transpose_mul(%a: memref<2x3xf64>, %out: memref<3x2xf64>) kernel {
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %v = memref.load %a[%j, %i] : memref<2x3xf64>
      %sq = arith.mulf %v, %v : f64
      memref.store %sq, %out[%i, %j] : memref<3x2xf64>
      gpu.return
    }
  }

  func.func @upload(%h: memref<2x3xf64>) -> (memref<2x3xf64>, !gpu.async.token) {
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<2x3xf64>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<2x3xf64>, memref<2x3xf64>
    return %d, %t2 : memref<2x3xf64>, !gpu.async.token
  }

  func.func @compute(%d: memref<2x3xf64>, %dep: !gpu.async.token) -> (memref<3x2xf64>, !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %o, %t1 = gpu.alloc async [%dep] () : memref<3x2xf64>
    %t2 = gpu.launch_func async [%t1] @toy_kernels::@transpose_mul blocks in (%c1, %c1, %c1) threads in (%c3, %c2, %c1)
        args(%d : memref<2x3xf64>, %o : memref<3x2xf64>)
    return %o, %t2 : memref<3x2xf64>, !gpu.async.token
  }

  func.func @download(%o: memref<3x2xf64>, %h: memref<3x2xf64>, %dep: !gpu.async.token) {
    %t1 = gpu.memcpy async [%dep] %h, %o : memref<3x2xf64>, memref<3x2xf64>
    %t2 = gpu.dealloc async [%t1] %o : memref<3x2xf64>
    gpu.wait [%t2]
    return
  }

  func.func @main() {
    %cst = arith.constant 1.5 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %a = memref.alloc() : memref<2x3xf64>
    %r = memref.alloc() : memref<3x2xf64>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        memref.store %cst, %a[%i, %j] : memref<2x3xf64>
      }
    }
    %d, %t0 = call @upload(%a) : (memref<2x3xf64>) -> (memref<2x3xf64>, !gpu.async.token)
    %o, %t1 = call @compute(%d, %t0) : (memref<2x3xf64>, !gpu.async.token) -> (memref<3x2xf64>, !gpu.async.token)
    %t2 = gpu.dealloc async [%t1] %d : memref<2x3xf64>
    call @download(%o, %r, %t2) : (memref<3x2xf64>, memref<3x2xf64>, !gpu.async.token) -> ()
    %u = memref.cast %r : memref<3x2xf64> to memref<*xf64>
    call @printMemrefF64(%u) : (memref<*xf64>) -> ()
    memref.dealloc %a : memref<2x3xf64>
    memref.dealloc %r : memref<3x2xf64>
    return
  }
  func.func private @printMemrefF64(memref<*xf64>)
}
// DIFFERENTIAL mlir-opt-19: violated: the host wait in @download (43:5) is on a block argument, so it synchronizes and destroys a stream as an event (invalid-handle), the defect the WHY lines give for stream-no-leak=violated
// DIFFERENTIAL mlir-opt-22: violated: the host wait in @download (43:5) is on a block argument, so it synchronizes and destroys a stream as an event (invalid-handle), the defect the WHY lines give for stream-no-leak=violated
