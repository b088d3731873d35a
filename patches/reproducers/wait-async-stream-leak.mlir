func.func @f0() {
  %t1 = gpu.wait async
  %t2 = gpu.wait async [%t1]
  gpu.wait [%t2]
  return
}
