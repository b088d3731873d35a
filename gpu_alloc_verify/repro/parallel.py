"""The lit tests of many root causes at once: each bucket's test is reduced
and proven independently (several lowerings and FileCheck runs each, most
of the report's time), so buckets go to a pool of worker processes."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from gpu_alloc_verify.repro.export import (
    DEFAULT_FIXED,
    LitTest,
    export_bucket,
    unique_names,
    write_lit_config,
    write_provenance,
)
from gpu_alloc_verify.verify.tools.pool import each_on_workers
from gpu_alloc_verify.verify.triage.buckets import Bucket

Step = Callable[[int, int], None]


def export_buckets_parallel(buckets: list[Bucket], out_dir: str | Path,
                            fixed: str | None = DEFAULT_FIXED, jobs: int = 1,
                            step: Step | None = None) -> list[LitTest]:
    """`export.export_buckets` on `jobs` processes; `step(done, total)`
    after each bucket.  The tests come back in the buckets' order."""
    names = unique_names(buckets)
    total = len(buckets)
    if step is not None:
        step(0, total)
    tests: list[LitTest | None] = [None] * total
    if jobs <= 1 or total <= 1:
        for k, b in enumerate(buckets):
            tests[k] = export_bucket(b, out_dir, fixed, name=names[b.key])
            if step is not None:
                step(k + 1, total)
    else:
        # forked workers start with everything imported (lowerings, xDSL)
        finished = 0

        def done(k: int, test: LitTest) -> None:
            nonlocal finished
            tests[k] = test
            finished += 1
            if step is not None:
                step(finished, total)

        each_on_workers([partial(export_bucket, b, out_dir, fixed, name=names[b.key])
                         for b in buckets], jobs, done)
    out = [t for t in tests if t is not None]
    default = next((b.example.get("lowering") for b in buckets if b.example), None)
    if any(t.written for t in out):
        write_lit_config(out_dir, str(default or "mlir-opt"))
        write_provenance(out_dir, buckets, out)
    return out
