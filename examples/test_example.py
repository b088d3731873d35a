"""gpu-alloc-verify from a project's own pytest suite.

Run it with the lowering under test (`xdsl:pr69969` needs no external tool;
`mlir-opt-19`, the default, or `mlir-opt:/path/to/your/build` work too):

    pytest test_example.py --gav-lowering xdsl:pr69969     # 3 passed
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from gpu_alloc_verify import api
from gpu_alloc_verify.verify.model.program import Program

# `gpu.wait async [%t0]`: upstream gpu-to-llvm (LLVM 18-22) never destroys
# the stream it creates for %t0.
LEAKY = """
func.func @main() {
  %t0 = gpu.wait async
  %t1 = gpu.wait async [%t0]
  gpu.wait [%t1]
  return
}
"""


@settings(max_examples=20, deadline=None)
@given(program=api.programs(api.GenConfig(max_ops=6)))
def test_sync_alloc_creates_no_stream(lowering, program: Program) -> None:
    # `lowering`: the plugin's fixture, one per --gav-lowering, session-scoped
    # (plain Hypothesis accepts it under @given).  A failing example prints
    # as MLIR, and so does the counterexample assert_holds raises.
    api.assert_holds(program, lowering,
                     ["lowering-no-crash", "sync-alloc-no-stream", "host-shared-flag"])


def test_verdicts_of_one_program() -> None:
    verdicts = api.check(LEAKY, api.lowering("xdsl:pr69969"),
                         ["stream-no-leak", "stream-no-use-after-destroy"])
    assert verdicts == {"stream-no-leak": "violated",
                        "stream-no-use-after-destroy": "holds"}


def test_a_violation_fails_with_the_counterexample() -> None:
    # Text is read as `gpu-alloc-verify check FILE` reads a file (kernels and
    # all); the counterexample points into it: %t0's gpu.wait, line 3, column 9.
    with pytest.raises(AssertionError, match="stream-no-leak violated") as failure:
        api.assert_holds(LEAKY, "xdsl:pr69969", ["stream-no-leak"], filename="leaky.mlir")
    assert "stream created by leaky.mlir:3:9" in str(failure.value)
