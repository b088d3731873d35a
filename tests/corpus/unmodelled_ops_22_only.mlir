// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: *=not-applicable
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-22
// WHY: math.sincos (LLVM 21+) and vector.step (19+): only 22 parses the file; the memset
// WHY: chain is correct.
// Ops that only recent MLIR parses (math.sincos, vector.step) around a
// correct async memset.
func.func @phase(%angle: f32, %dev: memref<64xf32>) -> (f32, f32, vector<4xindex>) {
  %s, %c = math.sincos %angle : f32
  %lanes = vector.step : vector<4xindex>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %dev, %s : memref<64xf32>, f32
  gpu.wait [%t1]
  return %s, %c, %lanes : f32, f32, vector<4xindex>
}
