// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=unknown stream-no-use-after-destroy=unknown event-no-leak=holds host-shared-flag=not-applicable runtime-contract=unknown lowering-complete=violated
// POINTS mlir-opt-19 lowering-complete: 15:12
// POINTS mlir-opt-22 lowering-complete: 15:12
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-19 mlir-opt-22
// WHY: Generic form with <{properties}>, which 16 cannot parse. An alloc with two deps is left
// WHY: unconverted by 19/22 and both streams are handed to it.
"builtin.module"() ({
  "func.func"() <{function_type = (memref<64xf32>, memref<64xf32>) -> (), sym_name = "fan_in"}> ({
  ^bb0(%arg0: memref<64xf32>, %arg1: memref<64xf32>):
    %0 = "gpu.wait"() : () -> !gpu.async.token
    %1 = "gpu.wait"() : () -> !gpu.async.token
    %2:2 = "gpu.alloc"(%0, %1) <{operandSegmentSizes = array<i32: 2, 0, 0>}> : (!gpu.async.token, !gpu.async.token) -> (memref<64xf32>, !gpu.async.token)
    %3 = "gpu.memcpy"(%2#1, %2#0, %arg0) : (!gpu.async.token, memref<64xf32>, memref<64xf32>) -> !gpu.async.token
    %4 = "gpu.memcpy"(%3, %arg1, %2#0) : (!gpu.async.token, memref<64xf32>, memref<64xf32>) -> !gpu.async.token
    %5 = "gpu.dealloc"(%4, %2#0) : (!gpu.async.token, memref<64xf32>) -> !gpu.async.token
    "gpu.wait"(%5) : (!gpu.async.token) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
