// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=violated stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// POINTS mlir-opt-16 stream-no-leak: solver.py:42:5
// POINTS mlir-opt-19 stream-no-leak: solver.py:42:5
// POINTS mlir-opt-22 stream-no-leak: solver.py:42:5
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: The gpu.wait async hand-off leak again, written with #map/!type aliases and loc(...)
// WHY: annotations: the creator carries loc(#l_stream) = solver.py:42:5, which the violation names.
// Type and attribute aliases, named and file locations as a frontend
// (here a Python DSL, solver.py) emits them.
#tile = affine_map<(d0) -> (d0 floordiv 32)>
!vec = memref<1024xf32>
!dvec = memref<?xf32>
!tok = !gpu.async.token

func.func @residual(%b: !vec, %x: !vec, %r: !vec, %n: index) -> index {
  %tiles = affine.apply #tile(%n) loc("solver.py":40:11)
  %s0 = gpu.wait async loc(#l_stream)
  %tmp, %t1 = gpu.alloc async [%s0] () : !vec loc("solver.py":43:9)
  %t2 = gpu.memcpy async [%t1] %tmp, %b : !vec, !vec loc(fused["solver.py":44:5, "copy_b"])
  %t3 = gpu.wait async [%t2] loc("handoff"("solver.py":45:5))
  %t4 = gpu.memcpy async [%t3] %r, %tmp : !vec, !vec
  %t5 = gpu.dealloc async [%t4] %tmp : !vec
  gpu.wait [%t5] loc(callsite("sync" at "solver.py":48:5))
  return %tiles : index
}
#l_stream = loc("solver.py":42:5)
// DIFFERENTIAL mlir-opt-19: violated: the stream of gpu.wait async [%t2] (solver.py:45:5) stays live at exit, as stream-no-leak=violated says; the source leaves none
// DIFFERENTIAL mlir-opt-22: violated: the stream of gpu.wait async [%t2] (solver.py:45:5) stays live at exit, as stream-no-leak=violated says; the source leaves none
