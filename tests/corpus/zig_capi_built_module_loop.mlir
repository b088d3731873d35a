// EXPECT mlir-opt-16: *=not-applicable
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable event-no-leak=holds host-shared-flag=not-applicable lowering-complete=violated stream-no-leak=unknown
// EXPECT mlir-opt-22: *=not-applicable
// POINTS mlir-opt-19 lowering-complete: 18:17
// WHY: 19 cannot lower an async host_shared gpu.alloc and leaves it (with its token) unconverted: what its stream
// WHY: becomes is unknown. Generic form with 19's properties and gpu.module_end: 16 and 22 do not parse it.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-19
// SHAPE: a module built through the MLIR C API from a host language (a Zig frontend using mlir-c/Dialect/GPU.h, SCF, MemRef, Arith; printed in generic form): an scf.for on the host relaunches one kernel on an async chain, vector.print of a reduced scalar at the end
"builtin.module"() ({
  "func.func"() <{function_type = (memref<32xi16>) -> (), sym_name = "run"}> ({
  ^bb0(%buf: memref<32xi16>):
    %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
    %c32 = "arith.constant"() <{value = 32 : index}> : () -> index
    %t0 = "gpu.wait"() : () -> !gpu.async.token
    %dev, %t1 = "gpu.alloc"(%t0) <{hostShared, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!gpu.async.token) -> (memref<32xi16>, !gpu.async.token)
    %t2 = "gpu.memcpy"(%t1, %dev, %buf) : (!gpu.async.token, memref<32xi16>, memref<32xi16>) -> !gpu.async.token
    "gpu.wait"(%t2) : (!gpu.async.token) -> ()
    "scf.for"(%c0, %c4, %c1) ({
    ^bb1(%k: index):
      "gpu.launch_func"(%c1, %c1, %c1, %c32, %c1, %c1, %dev) <{kernel = @step::@double, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<32xi16>) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    %first = "memref.load"(%dev, %c0) : (memref<32xi16>, index) -> i16
    "vector.print"(%first) <{punctuation = #vector.punctuation<newline>}> : (i16) -> ()
    %t3 = "gpu.wait"() : () -> !gpu.async.token
    %t4 = "gpu.memcpy"(%t3, %buf, %dev) : (!gpu.async.token, memref<32xi16>, memref<32xi16>) -> !gpu.async.token
    %t5 = "gpu.dealloc"(%t4, %dev) : (!gpu.async.token, memref<32xi16>) -> !gpu.async.token
    "gpu.wait"(%t5) : (!gpu.async.token) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "gpu.module"() <{sym_name = "step"}> ({
    "gpu.func"() <{function_type = (memref<32xi16>) -> ()}> ({
    ^bb0(%b: memref<32xi16>):
      %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = "memref.load"(%b, %i) : (memref<32xi16>, index) -> i16
      %w = "arith.addi"(%v, %v) <{overflowFlags = #arith.overflow<none>}> : (i16, i16) -> i16
      "memref.store"(%w, %b, %i) : (i16, memref<32xi16>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "double"} : () -> ()
    "gpu.module_end"() : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
