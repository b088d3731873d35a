"""The lit tests of many root causes at once: each bucket's test is reduced
and proven independently (several lowerings and FileCheck runs each, most
of the report's time), so buckets go to a pool of worker processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path

from gpu_alloc_verify.reports.lit_export import (
    DEFAULT_FIXED,
    LitTest,
    export_bucket,
    unique_names,
    write_lit_config,
    write_provenance,
)
from gpu_alloc_verify.verify.triage.buckets import Bucket

Step = Callable[[int, int], None]


def export_buckets_parallel(buckets: list[Bucket], out_dir: str | Path,
                            fixed: str | None = DEFAULT_FIXED, jobs: int = 1,
                            step: Step | None = None) -> list[LitTest]:
    """`lit_export.export_buckets` on `jobs` processes; `step(done, total)`
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
        # fork: the workers start with everything imported (lowerings, xDSL)
        pool = ProcessPoolExecutor(min(jobs, total),
                                   mp_context=multiprocessing.get_context("fork"))
        try:
            futures: dict[Future[LitTest], int] = {
                pool.submit(export_bucket, b, out_dir, fixed, name=names[b.key]): k
                for k, b in enumerate(buckets)}
            for done, fut in enumerate(as_completed(futures), 1):
                tests[futures[fut]] = fut.result()
                if step is not None:
                    step(done, total)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    out = [t for t in tests if t is not None]
    default = next((b.example.get("lowering") for b in buckets if b.example), None)
    if any(t.written for t in out):
        write_lit_config(out_dir, str(default or "mlir-opt"))
        write_provenance(out_dir, buckets, out)
    return out
