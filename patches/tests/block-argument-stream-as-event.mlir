// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @wait_on_stream_through_block_argument
func.func @wait_on_stream_through_block_argument(%cond : i1) {
  // CHECK: %[[s0:.*]] = llvm.call @mgpuStreamCreate()
  %t0 = gpu.wait async
  // CHECK: %[[s1:.*]] = llvm.call @mgpuStreamCreate()
  %t1 = gpu.wait async
  // CHECK: llvm.cond_br %{{.*}}, ^[[bb:bb[0-9]+]](%[[s0]] : !llvm.ptr), ^[[bb]](%[[s1]] : !llvm.ptr)
  cf.cond_br %cond, ^bb1(%t0 : !gpu.async.token), ^bb1(%t1 : !gpu.async.token)
// CHECK: ^[[bb]](%[[token:[0-9]+]]: !llvm.ptr):
^bb1(%token : !gpu.async.token):
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[token]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[token]])
  gpu.wait [%token]
  return
}
