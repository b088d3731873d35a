// EXPECT mlir-opt-16: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-19: *=rejected lowering-no-crash=holds
// EXPECT mlir-opt-22: *=rejected lowering-no-crash=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: gpu.launch_func async with two dependencies: 19 and 22 fail to legalize it (exit 1);
// WHY: 16 also lacks gpu.binary.
// A reduction kernel that waits for two producer copies directly: an async
// launch with two dependencies.
module attributes {gpu.container_module} {
  gpu.module @reduce {
    gpu.func @dot(%a: memref<32xf32>, %b: memref<32xf32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%s = %zero) -> (f32) {
          %x = memref.load %a[%k] : memref<32xf32>
          %y = memref.load %b[%k] : memref<32xf32>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        memref.store %acc, %out[%c0] : memref<1xf32>
      }
      gpu.return
    }
  }

  func.func @dot(%ha: memref<32xf32>, %hb: memref<32xf32>, %da: memref<32xf32>,
                 %db: memref<32xf32>, %dout: memref<1xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %s0 = gpu.wait async
    %ta = gpu.memcpy async [%s0] %da, %ha : memref<32xf32>, memref<32xf32>
    %s1 = gpu.wait async
    %tb = gpu.memcpy async [%s1] %db, %hb : memref<32xf32>, memref<32xf32>
    %tk = gpu.launch_func async [%ta, %tb] @reduce::@dot blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1)
        args(%da : memref<32xf32>, %db : memref<32xf32>, %dout : memref<1xf32>)
    gpu.wait [%tk]
    return
  }
}
