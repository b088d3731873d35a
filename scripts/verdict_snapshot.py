#!/usr/bin/env python3
"""Every verdict, reason and detail on the bench's seeded programs and on
tests/corpus, as JSON lines: run it before and after a refactoring and
compare the two files (`--compare OLD NEW`), so "behaviour unchanged" is
measured, not assumed.

    scripts/verdict_snapshot.py --out /tmp/before.jsonl
    scripts/verdict_snapshot.py --out /tmp/after.jsonl
    scripts/verdict_snapshot.py --compare /tmp/before.jsonl /tmp/after.jsonl

Programs: `bench`'s seeded set (sizes 5/10/20/40, `--per-size` each, seed 0:
the 800 programs of `bench --programs 200`), judged on each `--lowering` with
every invariant; then every `tests/corpus/*.mlir` as `check FILE` reads it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.campaign.bench import SIZES, seeded_programs
from gpu_alloc_verify.verify.campaign.check_file import check_text
from gpu_alloc_verify.verify.invariants.options import CHECK_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, active_invariants, judge
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import SourceParseError

ROOT = Path(__file__).resolve().parents[1]


def _row(name: str, j: Judgement) -> dict[str, Any]:
    return {"case": name, "spec": j.spec, "status": str(j.status),
            "results": {str(i): {"verdict": str(r.verdict), "reason": r.reason or "",
                                 "details": [v.detail for v in r.violations]}
                        for i, r in j.results.items()}}


def _rows(specs: list[str], per_size: int) -> Iterator[dict[str, Any]]:
    options = CheckOptions(tuple(active_invariants()))
    for spec in specs:
        low = resolve(spec)
        for size in SIZES:
            progs = seeded_programs(size, per_size)
            for index, (program, outcome) in enumerate(
                    zip(progs, low.lower_batch(progs), strict=True)):
                yield _row(f"bench:{size}:{index}", judge(program, outcome, low.spec, options))
        for path in sorted((ROOT / "tests" / "corpus").glob("*.mlir")):
            try:
                j = check_text(path.read_text(encoding="utf-8"), path.name, low,
                               options.replace(truth=CHECK_TRUTH))
            except SourceParseError as err:  # what `check` reports for a file it cannot read
                yield {"case": f"corpus:{path.name}", "spec": low.spec, "error": str(err)}
                continue
            yield _row(f"corpus:{path.name}", j)


def _compare(old: Path, new: Path) -> int:
    def load(p: Path) -> dict[tuple[str, str], dict[str, Any]]:
        rows = (json.loads(ln) for ln in p.read_text().splitlines() if ln.strip())
        return {(r["spec"], r["case"]): r for r in rows}

    a, b = load(old), load(new)
    changed = [k for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    for key in changed[:20]:
        print(f"differs: {key}\n  old: {a.get(key)}\n  new: {b.get(key)}")
    print(f"{len(a)} cases before, {len(b)} after, {len(changed)} differ")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write the snapshot here (JSON lines)")
    ap.add_argument("--lowering", action="append", help="default: mlir-opt-19, xdsl:reference")
    ap.add_argument("--per-size", type=int, default=200, help="programs per size (default 200)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = ap.parse_args(argv)
    if args.compare:
        return _compare(*args.compare)
    if not args.out:
        ap.error("--out or --compare is required")
    start, n = time.perf_counter(), 0
    with args.out.open("w", encoding="utf-8") as out:
        for row in _rows(args.lowering or ["mlir-opt-19", "xdsl:reference"], args.per_size):
            out.write(json.dumps(row, sort_keys=True) + "\n")
            n += 1
            if n % 100 == 0:
                print(f"{n} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"{n} cases in {time.perf_counter() - start:.0f} s -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
