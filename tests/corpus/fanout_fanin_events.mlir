// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-19 stream-no-leak: 42:11
// POINTS mlir-opt-22 stream-no-leak: 42:11
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Fan-in through gpu.wait async [%ta, %tb]: one event per operand, all destroyed, a new
// WHY: stream waits on them; the first stream (42:11) is never destroyed. 16: no gpu.binary.
// Two kernels depend on the same upload (fan-out); the copy back waits for
// both through `gpu.wait async [%a, %b]` (fan-in through events).
module attributes {gpu.container_module} {
  gpu.module @stencil {
    gpu.func @left(%buf: memref<?xf32>, %n: index) kernel {
      %i = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %buf[%i] : memref<?xf32>
        %two = arith.constant 2.0 : f32
        %w = arith.mulf %v, %two : f32
        memref.store %w, %buf[%i] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @right(%buf: memref<?xf32>, %n: index) kernel {
      %i = gpu.thread_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %buf[%i] : memref<?xf32>
        %w = math.exp %v : f32
        memref.store %w, %buf[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @run_stencil(%host: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %host, %c0 : memref<?xf32>
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %d, %host : memref<?xf32>, memref<?xf32>
    %ta = gpu.launch_func async [%t2] @stencil::@left blocks in (%c1, %c1, %c1)
        threads in (%n, %c1, %c1) args(%d : memref<?xf32>, %n : index)
    %tb = gpu.launch_func async [%t2] @stencil::@right blocks in (%c1, %c1, %c1)
        threads in (%n, %c1, %c1) args(%d : memref<?xf32>, %n : index)
    %tj = gpu.wait async [%ta, %tb]
    %t3 = gpu.memcpy async [%tj] %host, %d : memref<?xf32>, memref<?xf32>
    %t4 = gpu.dealloc async [%t3] %d : memref<?xf32>
    gpu.wait [%t4]
    return
  }
}
