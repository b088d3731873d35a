"""Issue 40 part B: the async runtime chain's output decided, not `unknown`
(verify.extract.async_runtime).

Each source goes through the real mlir-opt-19 with the chain after
gpu-to-llvm (`async-to-async-runtime,async-runtime-ref-counting,
convert-async-to-llvm`, the portfolio's async pipeline): `async.execute`
becomes a coroutine that suspends, is resumed by `mlirAsyncRuntimeExecute`,
stores what it yields in the value's storage, which the host loads after
`mlirAsyncRuntimeAwaitValue`.
The switch on `llvm.intr.coro.suspend`'s result is `llvm.switch` (modelled
for issue 43): the suspend yields 0, so the switch takes the resumed body.

The bug: a token yielded by an execute is the body's stream, and the host
synchronizes and destroys it as an event (and the stream leaks).  Its
correct twins (the yielded token recorded in an event; the body waiting its
own stream) hold on every handle rule: the value's storage carries the
event, the coroutine's calls run once.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.builders import check_module
from tests.conftest import need_mlir_opt

# The portfolio's async pipeline, and the same without the gpu.module anchor.
# Measured on 19: with the anchor, gpu-to-llvm yields the body's stream
# itself; without it, an event recorded on it (and the stream destroyed).
ASYNC_RUNTIME = "async-to-async-runtime,async-runtime-ref-counting,convert-async-to-llvm"
CHAIN = f"builtin.module(gpu.module(convert-gpu-to-nvvm),gpu-to-llvm,{ASYNC_RUNTIME})"
PLAIN_CHAIN = f"builtin.module(gpu-to-llvm,{ASYNC_RUNTIME})"

# The body's token is its own stream (`gpu.wait async [%t]` of a token the
# execute was given), yielded as it is: the host gets that stream back.
STREAM_YIELDED = """module {
  func.func @f(%n: index) {
    %t0 = gpu.wait async
    %m, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %tok, %v = async.execute () -> !async.value<!gpu.async.token> {
      %t2 = gpu.wait async [%t1]
      %t3 = gpu.dealloc async [%t2] %m : memref<?xf32>
      async.yield %t3 : !gpu.async.token
    }
    %r = async.await %v : !async.value<!gpu.async.token>
    gpu.wait [%r]
    return
  }
}
"""

# The body makes its stream and yields its token: without the anchor,
# gpu-to-llvm records an event for it, stored in the value and waited on.
EVENT_YIELDED = """module {
  func.func @f() {
    %tok, %v = async.execute () -> !async.value<!gpu.async.token> {
      %t = gpu.wait async
      %m, %t1 = gpu.alloc async [%t] () : memref<4xf32>
      %t2 = gpu.dealloc async [%t1] %m : memref<4xf32>
      async.yield %t2 : !gpu.async.token
    }
    %r = async.await %v : !async.value<!gpu.async.token>
    gpu.wait [%r]
    return
  }
}
"""

WAITED_IN_BODY = """module {
  func.func @f() {
    %tok = async.execute {
      %t = gpu.wait async
      %m, %t1 = gpu.alloc async [%t] () : memref<4xf32>
      %t2 = gpu.dealloc async [%t1] %m : memref<4xf32>
      gpu.wait [%t2]
      async.yield
    }
    async.await %tok : !async.token
    return
  }
}
"""


def _through_chain(source: str, chain: str = CHAIN) -> str:
    proc = subprocess.run(
        [need_mlir_opt(19), f"--pass-pipeline={chain}", "-", "--mlir-print-debuginfo",
         "--mlir-print-local-scope"], input=source, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lowered = proc.stdout.replace('"<stdin>"', '"src.mlir"')
    assert "mlirAsyncRuntimeExecute" in lowered and "llvm.intr.coro.suspend" in lowered
    assert "llvm.switch" in lowered  # on the suspend's result: 0 resumes the body
    return lowered


@pytest.mark.slow
def test_a_yielded_stream_synchronized_as_an_event_is_caught() -> None:
    results = check_module(STREAM_YIELDED, _through_chain(STREAM_YIELDED))
    contract = results["runtime-contract"]
    assert contract.verdict == "violated", contract
    assert "given a stream where an event is expected" in str(contract.violations[0].detail)
    assert results["stream-no-leak"].verdict == "violated"


@pytest.mark.parametrize(("source", "chain"), [(EVENT_YIELDED, PLAIN_CHAIN),
                                               (WAITED_IN_BODY, CHAIN)],
                         ids=["event-yielded", "waited-in-body"])
def test_its_correct_twins_hold(source: str, chain: str) -> None:
    results = check_module(source, _through_chain(source, chain))
    for rule in ("stream-no-leak", "stream-no-use-after-destroy", "event-no-leak",
                 "runtime-contract"):
        assert results[rule].verdict == "holds", (rule, results[rule])
