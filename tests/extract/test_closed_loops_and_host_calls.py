"""Issue 26's semantics for real host code, each with a bug it catches and a
correct twin it stays quiet on:

- a call of an external function given buffers (`printMemrefF32`) is a host
  access in host order (`verify.source.facts.external_host_call`, `calls.call`);
- a loop past the unroll bound whose handles live and die in one iteration
  is summarized by that iteration (`slicing.closed_effects`): every
  invariant but async-order is decided; async-order is left unknown by the
  source reader (`verify.source.facts.loop_order_unknown`).
"""

from __future__ import annotations

import re
import subprocess

from tests.builders import DECLS, check_module
from tests.conftest import need_mlir_opt

HOST_CALL_SRC = """module {
  func.func @main(%h: memref<4xf32>, %d: memref<4xf32>) {
    %t0 = gpu.wait async
    %t1 = gpu.memcpy async [%t0] %h, %d : memref<4xf32>, memref<4xf32>
    gpu.wait [%t1]
    %u = memref.cast %h : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
"""


def _lowered(source: str) -> str:
    proc = subprocess.run(
        [need_mlir_opt(19), "--pass-pipeline=builtin.module(gpu-to-llvm)", "-",
         "--mlir-print-debuginfo", "--mlir-print-local-scope"],
        input=source, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.replace('"<stdin>"', '"src.mlir"')


def test_host_call_after_the_wait_holds_and_before_it_is_caught() -> None:
    twin = _lowered(HOST_CALL_SRC)
    assert check_module(HOST_CALL_SRC, twin)["async-order"].verdict == "holds"
    # The bug: the host wait's synchronize (and destroy) moved after the
    # printer, which then reads %h while the copy into it may still run.
    lines = twin.splitlines()
    sync = [ln for ln in lines if re.search(r"@mgpuStream(Synchronize|Destroy)\(%", ln)]
    call = next(k for k, ln in enumerate(lines) if "llvm.call @printMemrefF32" in ln)
    bug = [ln for ln in lines[:call + 1] if ln not in sync] + sync + lines[call + 1:]
    result = check_module(HOST_CALL_SRC, "\n".join(bug))["async-order"]
    assert result.verdict == "violated", result
    assert "7:5" in str(result.violations[0].detail) + str(result.violations[0].counterexample)


def test_external_call_returning_a_memref_stays_unknown() -> None:
    """It may hand back a view of the buffer: not modelled as a host access."""
    src = HOST_CALL_SRC.replace(
        "call @printMemrefF32(%u) : (memref<*xf32>) -> ()",
        "%v = call @view(%h) : (memref<4xf32>) -> memref<4xf32>").replace(
        "func.func private @printMemrefF32(memref<*xf32>)",
        "func.func private @view(memref<4xf32>) -> memref<4xf32>")
    assert check_module(src, _lowered(src))["async-order"].verdict == "unknown"


LOOP_SRC = """func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = gpu.wait async
    gpu.wait [%t]
  }
  return
}
"""


def _loop(body: str, cf: bool = False, before: str = "") -> str:
    """The lowered @main of LOOP_SRC with `body` as its loop body (`%s`:
    the iteration's stream), as scf.for or as branches with a back edge."""
    if cf:
        loop = f"""    llvm.br ^head(%c0 : i64)
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %n : i64
    llvm.cond_br %more, ^body, ^exit
  ^body:
{body}
    %next = llvm.add %i, %c1 : i64
    llvm.br ^head(%next : i64)
  ^exit:"""
    else:
        loop = f"""    scf.for %i = %c0 to %n step %c1 : i64 {{
{body}
    }} loc("src.mlir":5:3)"""
    return f"""module {{
  llvm.func @main() {{
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %n = llvm.mlir.constant(100 : i64) : i64
{before}
{loop}
    llvm.return
  }}
{DECLS}}}
"""


CREATE = '      %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":6:10)\n'
SYNC = '      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":7:5)\n'
DESTROY = '      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("src.mlir":7:5)\n'


def test_closed_loop_past_the_bound_is_decided() -> None:
    for cf in (False, True):
        r = check_module(LOOP_SRC, _loop(CREATE + SYNC + DESTROY, cf))
        assert r["stream-no-leak"].verdict == "holds", (cf, r["stream-no-leak"])
        assert r["stream-no-use-after-destroy"].verdict == "holds", cf
        assert r["runtime-contract"].verdict == "holds", cf
        # One iteration stands for all, but not for the order across them.
        assert r["async-order"].verdict == "unknown", cf
        assert "across iterations" in (r["async-order"].reason or ""), cf


def test_closed_loop_leak_and_double_destroy_are_caught() -> None:
    for cf in (False, True):
        leak = check_module(LOOP_SRC, _loop(CREATE + SYNC, cf))
        assert leak["stream-no-leak"].verdict == "violated", (cf, leak["stream-no-leak"])
        twice = check_module(LOOP_SRC, _loop(CREATE + SYNC + DESTROY + DESTROY, cf))
        assert twice["stream-no-use-after-destroy"].verdict == "violated", cf


def test_destroy_of_a_handle_from_before_the_loop_is_not_summarized() -> None:
    """Destroyed in every iteration: twice from the second on.  Not closed:
    unrolled and cut, never `holds`."""
    before = CREATE.replace("      ", "    ", 1)
    for cf in (False, True):
        r = check_module(LOOP_SRC, _loop(SYNC + DESTROY, cf, before))
        assert r["stream-no-use-after-destroy"].verdict in ("violated", "unknown"), cf
        assert r["stream-no-leak"].verdict in ("violated", "unknown"), cf


def test_handle_carried_to_the_next_iteration_is_not_summarized() -> None:
    """Double buffering: each iteration destroys the stream the one before
    made.  Per iteration that is a leak and a foreign destroy; the loop is
    not closed, so no verdict may come from one iteration."""
    body = CREATE + SYNC
    src = _loop(body, cf=True).replace("^head(%c0 : i64)", "^head(%c0, %z : i64, !llvm.ptr)")
    src = src.replace("^head(%i: i64):", "^head(%i: i64, %prev: !llvm.ptr):")
    src = src.replace("llvm.br ^head(%next : i64)", "llvm.call @mgpuStreamDestroy(%prev) : "
                      "(!llvm.ptr) -> ()\n    llvm.br ^head(%next, %s : i64, !llvm.ptr)")
    src = src.replace("    %c1 = llvm.mlir.constant(1 : i64) : i64\n",
                      "    %c1 = llvm.mlir.constant(1 : i64) : i64\n"
                      "    %z = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr\n", 1)
    r = check_module(LOOP_SRC, src)
    assert r["stream-no-leak"].verdict != "holds"
    assert r["stream-no-leak"].verdict != "violated" or "4" in str(r["stream-no-leak"])


STRAIGHT_SRC = """func.func @main() {
  %t = gpu.wait async
  gpu.wait [%t]
  return
}
"""


def test_summarized_loop_without_a_source_loop_leaves_order_unknown() -> None:
    """A lowering that wraps straight-line work in a loop: no source reason
    marks the order across its iterations, so the summary's own cut must."""
    for cf in (False, True):
        r = check_module(STRAIGHT_SRC, _loop(CREATE + SYNC + DESTROY, cf))
        assert r["async-order"].verdict == "unknown", (cf, r["async-order"])
        assert "summarized" in (r["async-order"].reason or ""), cf
