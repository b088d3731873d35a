func.func @f0() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t1 = gpu.wait async
  %t4 = scf.for %i3 = %c0 to %c0 step %c1 iter_args(%t2 = %t1) -> (!gpu.async.token) {
    scf.yield %t2 : !gpu.async.token
  }
  gpu.wait [%t4]
  return
}
