// EXPECT mlir-opt-16: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-19: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// EXPECT mlir-opt-22: lowering-no-crash=holds sync-alloc-no-stream=not-applicable stream-no-leak=holds stream-no-use-after-destroy=holds event-no-leak=holds host-shared-flag=holds async-order=unknown runtime-contract=holds lowering-complete=holds
// PIPELINE: gpu.module(convert-gpu-to-nvvm),gpu-to-llvm
// VALID: mlir-opt-16 mlir-opt-19 mlir-opt-22
// WHY: math/vector/linalg.fill/llvm.call and acme.* attributes touch no handle; linalg.fill
// WHY: writes the staging buffer the first copy reads, so only async-order is unknown.
// A correct async round trip with host-side ops the harness does not model
// mixed in: math, vector, linalg on a host buffer, a call into the user's
// own LLVM-dialect logger, and attributes of a dialect nobody registered.
llvm.func @trace_event(i32, f32)

func.func @normalize(%host: memref<256xf32>, %scale: f32, %stage: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %inv = math.rsqrt %scale : f32
  %lane = vector.broadcast %inv : f32 to vector<8xf32>
  %sum = vector.reduction <add>, %lane : vector<8xf32> into f32
  %staging = memref.alloc() {acme.pool = "pinned", acme.priority = 3 : i32} : memref<256xf32>
  linalg.fill ins(%inv : f32) outs(%staging : memref<256xf32>)
  llvm.call @trace_event(%stage, %sum) : (i32, f32) -> ()

  %s = gpu.wait async
  %dev, %t1 = gpu.alloc async [%s] () {acme.tag = "h2d", acme.stream_hint = 2 : i64} : memref<256xf32>
  %t2 = gpu.memcpy async [%t1] %dev, %staging : memref<256xf32>, memref<256xf32>
  %t3 = gpu.memcpy async [%t2] %host, %dev : memref<256xf32>, memref<256xf32>
  %t4 = gpu.dealloc async [%t3] %dev : memref<256xf32>
  gpu.wait [%t4]

  memref.dealloc %staging : memref<256xf32>
  %first = memref.load %host[%c0] : memref<256xf32>
  %out = math.fma %first, %sum, %inv : f32
  return %out : f32
}
