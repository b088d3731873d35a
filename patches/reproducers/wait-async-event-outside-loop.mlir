func.func @f0() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t1 = gpu.wait async
  scf.for %i2 = %c0 to %c2 step %c1 {
    %t3 = gpu.wait async [%t1]
  }
  return
}
