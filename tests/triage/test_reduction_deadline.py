"""Reductions stop on time (`findings --time-budget` ends on time): a
reduction cut short keeps every accepted step, so it still shows what it
must, and past the deadline a bucket is left as judged."""

from __future__ import annotations

import time
from collections.abc import Sequence

from gpu_alloc_verify.verify.triage.reduce import (
    reduce_text,
    reductions_out_of_time,
    reductions_until,
)

TEXT = """func.func @main() {
  %t0 = gpu.wait async
  %m, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %c = arith.constant 1.0 : f32
  %t2 = gpu.memset async [%t1] %m, %c : memref<16xf32>, f32
  %t3 = gpu.dealloc async [%t2] %m : memref<16xf32>
  gpu.wait [%t3]
  return
}
"""


def _keeps(texts: Sequence[str]) -> list[bool]:
    return ["gpu.alloc" in t for t in texts]  # the "violation": an alloc is left


def test_without_a_deadline_the_text_is_reduced() -> None:
    reduced = reduce_text(TEXT, _keeps)
    assert "gpu.alloc" in reduced and len(reduced) < len(TEXT)


def test_past_the_deadline_nothing_more_is_tried() -> None:
    with reductions_until(time.monotonic() - 1):
        assert reductions_out_of_time()
        assert reduce_text(TEXT, _keeps) == TEXT
    assert not reductions_out_of_time()  # the limit ends with its block


def test_a_deadline_in_the_future_changes_nothing() -> None:
    with reductions_until(time.monotonic() + 600):
        assert reduce_text(TEXT, _keeps) == reduce_text(TEXT, _keeps)
        assert len(reduce_text(TEXT, _keeps)) < len(TEXT)
