// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @wait_on_stream_carried_by_loop_block_argument
func.func @wait_on_stream_carried_by_loop_block_argument(%cond : i1) {
  // CHECK: %[[stream:.*]] = llvm.call @mgpuStreamCreate()
  %t0 = gpu.wait async
  // CHECK: llvm.br ^[[loop:bb[0-9]+]](%[[stream]] : !llvm.ptr)
  cf.br ^loop(%t0 : !gpu.async.token)
// CHECK: ^[[loop]](%[[token:[0-9]+]]: !llvm.ptr):
^loop(%token : !gpu.async.token):
  // CHECK: llvm.cond_br %{{.*}}, ^[[loop]](%[[token]] : !llvm.ptr), ^[[exit:bb[0-9]+]]
  cf.cond_br %cond, ^loop(%token : !gpu.async.token), ^exit
// CHECK: ^[[exit]]:
^exit:
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[token]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[token]])
  gpu.wait [%token]
  return
}
