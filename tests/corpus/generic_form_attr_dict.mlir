// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: Generic form with inherent attributes in the attribute dictionary (operand_segment_sizes):
// WHY: 16, 19 and 22 all parse it; a correct one-stream chain.
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<128xi32>, %arg1: index):
    %0 = "gpu.wait"() : () -> !gpu.async.token
    %1:2 = "gpu.alloc"(%0) {operand_segment_sizes = array<i32: 1, 0, 0>} : (!gpu.async.token) -> (memref<128xi32>, !gpu.async.token)
    %2 = "gpu.memcpy"(%1#1, %1#0, %arg0) : (!gpu.async.token, memref<128xi32>, memref<128xi32>) -> !gpu.async.token
    %3 = "gpu.memcpy"(%2, %arg0, %1#0) : (!gpu.async.token, memref<128xi32>, memref<128xi32>) -> !gpu.async.token
    %4 = "gpu.dealloc"(%3, %1#0) : (!gpu.async.token, memref<128xi32>) -> !gpu.async.token
    "gpu.wait"(%4) : (!gpu.async.token) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<128xi32>, index) -> (), sym_name = "bounce"} : () -> ()
}) : () -> ()
