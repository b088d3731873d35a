"""`lowering-complete` counts a `!gpu.async.token` in a function's signature
or a block argument, not only in op results (issue 43: a token parameter
left by a lowering was a false `holds`)."""

from __future__ import annotations

from tests.builders import check_module

SOURCE = """func.func @main() {
  %t0 = gpu.wait async
  gpu.wait [%t0]
  return
}
"""
MAIN = """  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @main() {
    %1 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":2:9)
    llvm.call @mgpuStreamSynchronize(%1) : (!llvm.ptr) -> () loc("src.mlir":3:3)
    llvm.call @mgpuStreamDestroy(%1) : (!llvm.ptr) -> () loc("src.mlir":3:3)
    llvm.return
  }
"""


def _complete(extra: str) -> tuple[str, list[str]]:
    r = check_module(SOURCE, "module {\n" + MAIN + extra + "}\n")["lowering-complete"]
    return r.verdict, [v.detail for v in r.violations]


def test_a_token_parameter_is_left_over() -> None:
    verdict, details = _complete("  func.func @helper(%t: !gpu.async.token) {\n"
                                 "    return\n  }\n")
    assert verdict == "violated"
    assert details == ["!gpu.async.token in the signature of @helper left in @helper (from ?) "
                       "although the lowering reported success"]


def test_a_declaration_with_a_token_result_is_left_over() -> None:
    verdict, details = _complete("  func.func private @make() -> !gpu.async.token\n")
    assert verdict == "violated" and "signature of @make" in details[0]


def test_a_token_carried_by_a_block_argument_is_left_over() -> None:
    verdict, details = _complete(
        "  func.func @loop(%t: i1) {\n"
        "    %0 = builtin.unrealized_conversion_cast to !gpu.async.token\n"
        "    cf.br ^bb1(%0 : !gpu.async.token)\n"
        "  ^bb1(%1: !gpu.async.token):\n"
        "    return\n  }\n")
    assert verdict == "violated"
    assert any("block argument" in d for d in details)


def test_no_token_anywhere_holds() -> None:
    assert _complete("") == ("holds", [])
