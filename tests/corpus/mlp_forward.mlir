// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Helpers each sync and destroy their stream; kernels get buffers, never handles; the
// WHY: host_shared output alloc is lowered with a null stream. 16 rejects it (sync alloc).
// A two-layer perceptron forward pass: several kernels, helper functions,
// host scratch buffers, a host_shared output read back after the wait.
module attributes {gpu.container_module} {
  gpu.module @mlp {
    gpu.func @matvec(%w: memref<16x16xf32>, %x: memref<16xf32>, %y: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %row = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %zero) -> (f32) {
        %a = memref.load %w[%row, %k] : memref<16x16xf32>
        %b = memref.load %x[%k] : memref<16xf32>
        %p = arith.mulf %a, %b : f32
        %s2 = arith.addf %s, %p : f32
        scf.yield %s2 : f32
      }
      memref.store %acc, %y[%row] : memref<16xf32>
      gpu.return
    }
    gpu.func @relu(%y: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %y[%i] : memref<16xf32>
      %zero = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %v, %zero : f32
      %r = arith.select %neg, %zero, %v : f32
      memref.store %r, %y[%i] : memref<16xf32>
      gpu.return
    }
  }

  func.func private @load_weights(memref<16x16xf32>, i32)

  func.func @upload_weights(%layer: i32) -> memref<16x16xf32> {
    %host = memref.alloc() : memref<16x16xf32>
    call @load_weights(%host, %layer) : (memref<16x16xf32>, i32) -> ()
    %s = gpu.wait async
    %dev, %t1 = gpu.alloc async [%s] () : memref<16x16xf32>
    %t2 = gpu.memcpy async [%t1] %dev, %host : memref<16x16xf32>, memref<16x16xf32>
    gpu.wait [%t2]
    memref.dealloc %host : memref<16x16xf32>
    return %dev : memref<16x16xf32>
  }

  func.func @forward(%input: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %l0 = arith.constant 0 : i32
    %l1 = arith.constant 1 : i32
    %w0 = call @upload_weights(%l0) : (i32) -> memref<16x16xf32>
    %w1 = call @upload_weights(%l1) : (i32) -> memref<16x16xf32>
    %out = gpu.alloc host_shared () : memref<16xf32>
    %s = gpu.wait async
    %x, %t1 = gpu.alloc async [%s] () : memref<16xf32>
    %h, %t2 = gpu.alloc async [%t1] () : memref<16xf32>
    %t3 = gpu.memcpy async [%t2] %x, %input : memref<16xf32>, memref<16xf32>
    %t4 = gpu.launch_func async [%t3] @mlp::@matvec blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%w0 : memref<16x16xf32>, %x : memref<16xf32>, %h : memref<16xf32>)
    %t5 = gpu.launch_func async [%t4] @mlp::@relu blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%h : memref<16xf32>)
    %t6 = gpu.launch_func async [%t5] @mlp::@matvec blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%w1 : memref<16x16xf32>, %h : memref<16xf32>, %out : memref<16xf32>)
    %t7 = gpu.dealloc async [%t6] %x : memref<16xf32>
    %t8 = gpu.dealloc async [%t7] %h : memref<16xf32>
    %t9 = gpu.dealloc async [%t8] %w0 : memref<16x16xf32>
    %t10 = gpu.dealloc async [%t9] %w1 : memref<16x16xf32>
    gpu.wait [%t10]
    %score = memref.load %out[%c0] : memref<16xf32>
    %u = gpu.wait async
    %u1 = gpu.dealloc async [%u] %out : memref<16xf32>
    gpu.wait [%u1]
    return %score : f32
  }
}
