func.func @f0() {
  %m1 = gpu.alloc () : memref<64x16xi32>
  %t2 = gpu.dealloc async %m1 : memref<64x16xi32>
  %m4 = gpu.alloc () : memref<1xf32>
  gpu.wait [%t2]
  return
}
