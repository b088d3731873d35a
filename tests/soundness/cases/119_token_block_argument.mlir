// Case 119 (issue 43): a token carried by a block argument.
// Source: a host wait.
// twin: the helper's block carries the stream (!llvm.ptr).
// bug: it carries a `!gpu.async.token` made by an unresolved cast.

// ---- source
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}

// ---- twin
  func.func @helper(%p: !llvm.ptr) {
    cf.br ^bb1(%p : !llvm.ptr)
  ^bb1(%q: !llvm.ptr):
    return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }

// ---- bug
  func.func @helper(%p: !llvm.ptr) {
    %t = builtin.unrealized_conversion_cast %p : !llvm.ptr to !gpu.async.token
    cf.br ^bb1(%t : !gpu.async.token)
  ^bb1(%q: !gpu.async.token):
    return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
