func.func @f0(%size : index) -> memref<?xf32, 1> {
  %t0 = gpu.wait async
  %m1, %t1 = gpu.alloc async [%t0] (%size) : memref<?xf32, 1>
  gpu.wait [%t1]
  return %m1 : memref<?xf32, 1>
}
