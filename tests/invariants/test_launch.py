"""A lowered `gpu.launch_func <%stream>` is kernel work on that stream
(issue #14): the checkers see its stream use and its place in the schedule,
also when the stream reaches it through memory."""

from __future__ import annotations

import re

import pytest

from tests.builders import check_module

SOURCE = """\
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%b: memref<4xf32>) kernel { gpu.return }
  }
  func.func @f(%b: memref<4xf32>) -> f32 {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k::@fill blocks in (%c1, %c1, %c1) \
threads in (%c1, %c1, %c1) args(%b : memref<4xf32>)
    gpu.wait [%t1]
    %v = memref.load %b[%c1] : memref<4xf32>
    return %v : f32
  }
}
"""
WAIT, LAUNCH, HOST_WAIT, LOAD = (f'loc("src.mlir":{at})'
                                 for at in ("7:11", "8:11", "9:5", "10:10"))


def lowered(body: str) -> str:
    return f"""\
module attributes {{gpu.container_module}} {{
  gpu.module @k {{
    llvm.func @fill(%p: !llvm.ptr) attributes {{gpu.kernel}} {{ llvm.return }}
  }}
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @f(%b: !llvm.ptr) -> f32 {{
    %c1 = llvm.mlir.constant(1 : index) : i64
{body}
    %v = llvm.load %b : !llvm.ptr -> f32 {LOAD}
    llvm.return %v : f32
  }}
}}
"""


CREATE = f"    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr {WAIT}\n"
RUN = ("    gpu.launch_func <%s : !llvm.ptr> @k::@fill blocks in (%c1, %c1, %c1) "
       f"threads in (%c1, %c1, %c1) : i64 args(%b : !llvm.ptr) {LAUNCH}\n")
SYNC = f"    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () {HOST_WAIT}\n"
DESTROY = f"    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () {HOST_WAIT}\n"
# The stream reaches the launch through a stack slot.
VIA_SLOT = ("    %one = llvm.mlir.constant(1 : i64) : i64\n"
            "    %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr\n"
            "    llvm.store %s0, %slot : !llvm.ptr, !llvm.ptr\n"
            "    %s = llvm.load %slot : !llvm.ptr -> !llvm.ptr\n")


def test_correct_launch_lowering_holds() -> None:
    r = check_module(SOURCE, lowered(CREATE + RUN + SYNC + DESTROY))
    for inv in ("stream-no-leak", "stream-no-use-after-destroy", "async-order",
                "lowering-complete", "runtime-contract"):
        assert r[inv].verdict == "holds", (inv, r[inv])


@pytest.mark.parametrize("via_slot", [False, True], ids=["direct", "through-a-stack-slot"])
def test_launch_after_destroy_is_a_use_after_destroy(via_slot: bool) -> None:
    create = CREATE.replace("%s =", "%s0 =") + VIA_SLOT if via_slot else CREATE
    r = check_module(SOURCE, lowered(create + SYNC + DESTROY + RUN))
    assert r["stream-no-use-after-destroy"].verdict == "violated"
    # ...and the host read no longer waits for the kernel.
    assert r["async-order"].verdict == "violated"


def test_missing_synchronize_breaks_the_host_read_order() -> None:
    r = check_module(SOURCE, lowered(CREATE + RUN + DESTROY))
    assert r["async-order"].verdict == "violated"
    assert "src.mlir:8:11" in r["async-order"].violations[0].detail
    assert r["stream-no-leak"].verdict == "holds"


def test_a_launch_still_on_tokens_is_left_unconverted() -> None:
    text = lowered("").replace("%c1 = llvm.mlir.constant(1 : index) : i64",
                               "%c1 = llvm.mlir.constant(1 : index) : i64\n"
                               f"    %t = gpu.wait async {WAIT}\n"
                               "    %c = builtin.unrealized_conversion_cast %c1 : i64 to index\n"
                               "    %t2 = gpu.launch_func async [%t] @k::@fill blocks in (%c, %c,"
                               " %c) threads in (%c, %c, %c) args(%b : !llvm.ptr) " + LAUNCH
                               + "\n")
    r = check_module(SOURCE, text)
    assert r["lowering-complete"].verdict == "violated"


def _as_llvm17(generic_text: str) -> str:
    """LLVM 17's launch: the same operands without the three cluster segments."""
    out, n = re.subn(
        r"operandSegmentSizes = array<i32: (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), "
        r"0, 0, 0, (\d+), (\d+), (\d+)>",
        r"operandSegmentSizes = array<i32: \1, \2, \3, \4, \5, \6, \7, \8, \9, \10>",
        generic_text)
    assert n == 1
    return out


def test_the_stream_of_an_llvm17_launch_is_seen_too() -> None:
    """10 operand segments (async object, no cluster sizes): the last is the
    stream, as in the 13 of LLVM 18 on."""
    from gpu_alloc_verify.verify.invariants.options import CheckOptions
    from gpu_alloc_verify.verify.invariants.pipeline import judge
    from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
    from gpu_alloc_verify.verify.source.user_file import from_text
    from tests.builders import generic, need_mlir_opt

    src = from_text(SOURCE, "src.mlir", need_mlir_opt(19))

    def verdicts(body: str) -> dict:
        text = _as_llvm17(generic(lowered(body)))
        return judge(src, LoweringOutcome("ok", lowered=text), "hand-written",
                     CheckOptions(runtime="cuda", timeout_ms=2000)).results

    good = verdicts(CREATE + RUN + SYNC + DESTROY)
    assert good["stream-no-use-after-destroy"].verdict == "holds"
    assert good["async-order"].verdict == "holds"
    bad = verdicts(CREATE + SYNC + DESTROY + RUN)
    assert bad["stream-no-use-after-destroy"].verdict == "violated"
