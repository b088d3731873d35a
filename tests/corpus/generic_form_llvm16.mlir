// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: *=not-applicable
// EXPECT mlir-opt-22: *=not-applicable
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16
// WHY: mlir-opt-16's generic dump of a serialized kernel launch (9 operand segments): 19/22
// WHY: reject the launch_func layout. 16 emits mgpuModuleLoad/LaunchKernel on the chain's stream.
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<?xf32>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<?xf32>, index) -> f32
      %2 = "arith.addf"(%1, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<?xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<?xf32>) -> (), gpu.kernel, sym_name = "double", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {gpu.binary = "\7FELF-placeholder-cubin", sym_name = "k"} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: memref<?xf32>, %arg1: index):
    %0 = "arith.constant"() {value = 1 : index} : () -> index
    %1 = "gpu.wait"() : () -> !gpu.async.token
    %2:2 = "gpu.alloc"(%1, %arg1) {operand_segment_sizes = array<i32: 1, 1, 0>} : (!gpu.async.token, index) -> (memref<?xf32>, !gpu.async.token)
    %3 = "gpu.memcpy"(%2#1, %2#0, %arg0) : (!gpu.async.token, memref<?xf32>, memref<?xf32>) -> !gpu.async.token
    %4 = "gpu.launch_func"(%3, %0, %0, %0, %arg1, %0, %0, %2#0) {kernel = @k::@double, operand_segment_sizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (!gpu.async.token, index, index, index, index, index, index, memref<?xf32>) -> !gpu.async.token
    %5 = "gpu.memcpy"(%4, %arg0, %2#0) : (!gpu.async.token, memref<?xf32>, memref<?xf32>) -> !gpu.async.token
    %6 = "gpu.dealloc"(%5, %2#0) : (!gpu.async.token, memref<?xf32>) -> !gpu.async.token
    "gpu.wait"(%6) : (!gpu.async.token) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<?xf32>, index) -> (), sym_name = "double_on_device"} : () -> ()
}) {gpu.container_module} : () -> ()
