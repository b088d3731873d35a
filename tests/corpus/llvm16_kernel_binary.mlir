// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=not-applicable runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: With gpu.binary, 16 lowers the launch to mgpuModuleLoad/GetFunction/LaunchKernel(...,
// WHY: stream, ...)/ModuleUnload; 19/22 keep gpu.launch_func <%stream>. One stream, destroyed once.
// A kernel module already serialized (as gpu-to-cubin leaves it on LLVM 16:
// the `gpu.binary` attribute), launched once, async.
module attributes {gpu.container_module} {
  gpu.module @blur attributes {gpu.binary = "\7FELF-placeholder-cubin"} {
    gpu.func @blur_rows(%img: memref<?x?xf32>, %w: index) kernel {
      %row = gpu.block_id x
      %col = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %edge = arith.subi %w, %c1 : index
      %interior = arith.cmpi ult, %col, %edge : index
      scf.if %interior {
        %next = arith.addi %col, %c1 : index
        %a = memref.load %img[%row, %col] : memref<?x?xf32>
        %b = memref.load %img[%row, %next] : memref<?x?xf32>
        %s = arith.addf %a, %b : f32
        %h = arith.constant 0.5 : f32
        %m = arith.mulf %s, %h : f32
        memref.store %m, %img[%row, %col] : memref<?x?xf32>
      }
      gpu.return
    }
  }

  func.func @run_blur(%img: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = memref.dim %img, %c0 : memref<?x?xf32>
    %w = memref.dim %img, %c1 : memref<?x?xf32>
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @blur::@blur_rows blocks in (%h, %c1, %c1)
        threads in (%w, %c1, %c1) args(%img : memref<?x?xf32>, %w : index)
    gpu.wait [%t]
    return
  }
}
