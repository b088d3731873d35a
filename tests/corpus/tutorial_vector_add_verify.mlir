// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=rejected stream-no-leak=rejected stream-no-use-after-destroy=rejected event-no-leak=rejected host-shared-flag=rejected async-order=rejected runtime-contract=rejected lowering-complete=rejected
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=holds runtime-contract=holds lowering-complete=holds
// WHY: Lowered cleanly on every version that checks it: no violation, nothing unknown.
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// SHAPE: MLIR GPU tutorial (the "vector add on the GPU with MLIR" walkthroughs): init loop, async round trip, verify loop with scf.if and a print helper
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vector_add(%a: memref<1024xf32>, %b: memref<1024xf32>, %c: memref<1024xf32>) kernel {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %o = arith.muli %bid, %bdim : index
      %i = arith.addi %o, %tid : index
      %x = memref.load %a[%i] : memref<1024xf32>
      %y = memref.load %b[%i] : memref<1024xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%i] : memref<1024xf32>
      gpu.return
    }
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %three = arith.constant 3.0 : f32
    %ok = arith.constant 0 : i32
    %bad = arith.constant 1 : i32
    %ha = memref.alloc() : memref<1024xf32>
    %hb = memref.alloc() : memref<1024xf32>
    %hc = memref.alloc() : memref<1024xf32>
    scf.for %i = %c0 to %c1024 step %c1 {
      memref.store %one, %ha[%i] : memref<1024xf32>
      memref.store %two, %hb[%i] : memref<1024xf32>
    }
    %s = gpu.wait async
    %da, %t1 = gpu.alloc async [%s] () : memref<1024xf32>
    %db, %t2 = gpu.alloc async [%t1] () : memref<1024xf32>
    %dc, %t3 = gpu.alloc async [%t2] () : memref<1024xf32>
    %t4 = gpu.memcpy async [%t3] %da, %ha : memref<1024xf32>, memref<1024xf32>
    %t5 = gpu.memcpy async [%t4] %db, %hb : memref<1024xf32>, memref<1024xf32>
    %t6 = gpu.launch_func async [%t5] @kernels::@vector_add blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%da : memref<1024xf32>, %db : memref<1024xf32>, %dc : memref<1024xf32>)
    %t7 = gpu.memcpy async [%t6] %hc, %dc : memref<1024xf32>, memref<1024xf32>
    %t8 = gpu.dealloc async [%t7] %da : memref<1024xf32>
    %t9 = gpu.dealloc async [%t8] %db : memref<1024xf32>
    %t10 = gpu.dealloc async [%t9] %dc : memref<1024xf32>
    gpu.wait [%t10]
    %errs = scf.for %i = %c0 to %c1024 step %c1 iter_args(%e = %ok) -> (i32) {
      %v = memref.load %hc[%i] : memref<1024xf32>
      %eq = arith.cmpf oeq, %v, %three : f32
      %ne = scf.if %eq -> (i32) {
        scf.yield %e : i32
      } else {
        %e1 = arith.addi %e, %bad : i32
        scf.yield %e1 : i32
      }
      scf.yield %ne : i32
    }
    call @report_errors(%errs) : (i32) -> ()
    memref.dealloc %ha : memref<1024xf32>
    memref.dealloc %hb : memref<1024xf32>
    memref.dealloc %hc : memref<1024xf32>
    return %errs : i32
  }

  func.func private @report_errors(i32)
}
