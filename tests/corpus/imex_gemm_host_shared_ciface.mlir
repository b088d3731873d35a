// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=holds stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly where a version checks it; no violation. 16 rejects un-serialized kernels (gpu.binary needed).
// WHY: Unknowns: loops past the 4-iteration bound, host calls after the last wait, calls into helpers (see report).
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: Intel mlir-extensions (test/Integration/Dialect/XeGPU/*.mlir, imex-runner e2e): @test with llvm.emit_c_interface, host_shared allocs + memref.copy, result buffer returned
module @gemm attributes {gpu.container_module} {
  memref.global "private" @__A : memref<8x16xf16> = dense<1.0>
  memref.global "private" @__B : memref<16x16xf16> = dense<0.5>

  func.func @test(%A: memref<8x16xf16>, %B: memref<16x16xf16>) -> memref<8x16xf32> attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %memref = gpu.alloc host_shared () : memref<8x16xf16>
    memref.copy %A, %memref : memref<8x16xf16> to memref<8x16xf16>
    %memref_0 = gpu.alloc host_shared () : memref<16x16xf16>
    memref.copy %B, %memref_0 : memref<16x16xf16> to memref<16x16xf16>
    %memref_1 = gpu.alloc host_shared () : memref<8x16xf32>
    gpu.launch_func @test_kernel::@test_gemm blocks in (%c1, %c1, %c1) threads in (%c8, %c16, %c1)
        args(%memref : memref<8x16xf16>, %memref_0 : memref<16x16xf16>, %memref_1 : memref<8x16xf32>)
    %t0 = gpu.wait async
    %t1 = gpu.dealloc async [%t0] %memref : memref<8x16xf16>
    %t2 = gpu.dealloc async [%t1] %memref_0 : memref<16x16xf16>
    gpu.wait [%t2]
    return %memref_1 : memref<8x16xf32>
  }

  gpu.module @test_kernel {
    gpu.func @test_gemm(%A: memref<8x16xf16>, %B: memref<16x16xf16>, %C: memref<8x16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %zero = arith.constant 0.0 : f32
      %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<8x16xf16>
        %b = memref.load %B[%k, %j] : memref<16x16xf16>
        %p = arith.mulf %a, %b : f16
        %pf = arith.extf %p : f16 to f32
        %n = arith.addf %s, %pf : f32
        scf.yield %n : f32
      }
      memref.store %acc, %C[%i, %j] : memref<8x16xf32>
      gpu.return
    }
  }

  func.func @main() attributes {llvm.emit_c_interface} {
    %A = memref.get_global @__A : memref<8x16xf16>
    %B = memref.get_global @__B : memref<16x16xf16>
    %C = call @test(%A, %B) : (memref<8x16xf16>, memref<16x16xf16>) -> memref<8x16xf32>
    %cast = memref.cast %C : memref<8x16xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
}
