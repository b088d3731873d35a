// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-22: *=not-applicable
// WHY: gpu.printf is not legal for convert-gpu-to-rocdl without a printf runtime: 16/19 reject (exit 1), 22
// WHY: does not parse the old printf syntax: nothing checked.
// PIPELINE: gpu.module(convert-gpu-to-rocdl{use-bare-ptr-memref-call-conv=true}),gpu-to-llvm{use-bare-pointers-for-kernels=true}
// VALID: mlir-opt-16 mlir-opt-19
// SHAPE: LLVM ROCm integration test (mlir/test/Integration/GPU/ROCM/printf.mlir): printf kernel with bare-pointer calling convention
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @show(%buf: memref<4xi32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %buf[%tx] : memref<4xi32>
      gpu.printf "lane %lld holds %d\n" %tx, %v : index, i32
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %seven = arith.constant 7 : i32
    %h = memref.alloc() : memref<4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %seven, %h[%i] : memref<4xi32>
    }
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<4xi32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<4xi32>, memref<4xi32>
    %t3 = gpu.launch_func async [%t2] @kernels::@show blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%d : memref<4xi32>)
    %t4 = gpu.dealloc async [%t3] %d : memref<4xi32>
    gpu.wait [%t4]
    memref.dealloc %h : memref<4xi32>
    return
  }
}
