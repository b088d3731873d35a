// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: the ROCm-only helper mgpuMemGetDeviceMemRef1dFloat holds on hip, the runtime a ROCDL pipeline implies.
// WHY: async-order holds: @vecadd's launch is put in @main's host order at its call. 16 needs a serialized module.
// PIPELINE: convert-scf-to-cf,gpu-kernel-outlining,gpu.module(convert-gpu-to-rocdl),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: LLVM ROCm integration test (mlir/test/Integration/GPU/ROCM/vecadd.mlir): host_register + mgpuMemGetDeviceMemRef1dFloat, launch in a helper
func.func @vecadd(%a : memref<?xf32>, %b : memref<?xf32>, %out : memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<?xf32>
    %y = memref.load %b[%tx] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %v = arith.constant 2.5 : f32
  %h0 = memref.alloc(%c7) : memref<?xf32>
  %h1 = memref.alloc(%c7) : memref<?xf32>
  %h2 = memref.alloc(%c7) : memref<?xf32>
  scf.for %i = %c0 to %c7 step %c1 {
    memref.store %v, %h0[%i] : memref<?xf32>
    memref.store %v, %h1[%i] : memref<?xf32>
  }
  %u0 = memref.cast %h0 : memref<?xf32> to memref<*xf32>
  %u1 = memref.cast %h1 : memref<?xf32> to memref<*xf32>
  %u2 = memref.cast %h2 : memref<?xf32> to memref<*xf32>
  gpu.host_register %u0 : memref<*xf32>
  gpu.host_register %u1 : memref<*xf32>
  gpu.host_register %u2 : memref<*xf32>
  %d0 = call @mgpuMemGetDeviceMemRef1dFloat(%h0) : (memref<?xf32>) -> memref<?xf32>
  %d1 = call @mgpuMemGetDeviceMemRef1dFloat(%h1) : (memref<?xf32>) -> memref<?xf32>
  %d2 = call @mgpuMemGetDeviceMemRef1dFloat(%h2) : (memref<?xf32>) -> memref<?xf32>
  call @vecadd(%d0, %d1, %d2) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  return
}

func.func private @mgpuMemGetDeviceMemRef1dFloat(memref<?xf32>) -> memref<?xf32>
func.func private @printMemrefF32(memref<*xf32>)
