"""A runtime wrapper declared with a void result (`llvm.func
@mgpuStreamCreate()`) is a handle made that no one holds: a leak, never an
internal error (issue 43: it raised IndexError)."""

from __future__ import annotations

from tests.builders import check_module

SOURCE = """func.func @main() {
  %t0 = gpu.wait async
  gpu.wait [%t0]
  return
}
"""
LOWERED = """module {
  llvm.func @mgpuStreamCreate()
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @main() {
    llvm.call @mgpuStreamCreate() : () -> () loc("src.mlir":2:9)
    %1 = llvm.mlir.zero : !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("src.mlir":3:3)
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("src.mlir":3:3)
    llvm.return
  }
}
"""


def test_a_void_declared_stream_create_leaks_its_stream() -> None:
    results = check_module(SOURCE, LOWERED)
    leak = results["stream-no-leak"]
    assert leak.verdict == "violated"
    assert "destroyed 0 time(s)" in leak.violations[0].detail
    # The null stream given to the destroy is the contract's business.
    assert results["runtime-contract"].verdict == "violated"
