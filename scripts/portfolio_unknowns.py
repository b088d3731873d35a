"""The share of `unknown` verdicts on the pipeline portfolio vs gpu-to-llvm alone.

Issue 40: the portfolio (a default `fuzz`) must not leave more verdicts
undecided than the default pipeline did.  Runs the same seeds twice per
version, `--pipeline gpu.module(convert-gpu-to-nvvm),gpu-to-llvm` and
without `--pipeline`, and prints unknown / all verdicts (not-applicable
left out of both) for each, and per portfolio pipeline.

    .venv/bin/python scripts/portfolio_unknowns.py --versions 19 22 --seeds 2 --max-examples 150
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpu_alloc_verify.verify.campaign.fuzz import run_fuzz  # noqa: E402
from gpu_alloc_verify.verify.cli.fuzz import new_options  # noqa: E402
from gpu_alloc_verify.verify.cli.parser import build_parser  # noqa: E402
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE  # noqa: E402
from gpu_alloc_verify.verify.model.results import read_records  # noqa: E402


def campaign(version: int, seed: int, examples: int, results: Path, pipeline: str | None) -> None:
    """A default campaign (the options `fuzz` builds), in this process."""
    results.unlink(missing_ok=True)
    args = build_parser().parse_args([
        "fuzz", "--lowering", f"mlir-opt-{version}", "--seed", str(seed),
        "--max-examples", str(examples), "--no-shrink", "--results", str(results),
        *(["--pipeline", pipeline] if pipeline else [])])
    args.runtime = args.runtime or "cuda"  # what the CLI's defaults give a CUDA pipeline
    with contextlib.redirect_stderr(io.StringIO()):
        run_fuzz(new_options(args, str(results)))


def verdicts(results: Path) -> dict[str, Counter[str]]:
    """Pipeline ('' for the campaign's one) -> verdict counts."""
    out: dict[str, Counter[str]] = {}
    for rec in read_records(results):
        if rec.get("kind") != "program":
            continue
        for entry in (rec.get("results") or {}).values():
            counts = out.setdefault(str(entry.get("pipeline") or ""), Counter())
            counts.update(str(v) for v in (entry.get("verdicts") or {}).values())
    return out


def share(c: Counter[str]) -> str:
    decided = sum(n for v, n in c.items() if v != "not-applicable")
    return f"{c['unknown']}/{decided} = {c['unknown'] / max(1, decided):.1%}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", type=int, nargs="+", default=[19, 22])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--max-examples", type=int, default=150)
    ap.add_argument("--dir", type=Path, default=Path("portfolio_unknowns"))
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    for v in args.versions:
        alone: Counter[str] = Counter()
        whole: Counter[str] = Counter()
        per: dict[str, Counter[str]] = {}
        for s in range(args.seeds):
            one = args.dir / f"default-{v}-{s}.jsonl"
            many = args.dir / f"portfolio-{v}-{s}.jsonl"
            campaign(v, s, args.max_examples, one, DEFAULT_PIPELINE)
            campaign(v, s, args.max_examples, many, None)
            for c in verdicts(one).values():
                alone.update(c)
            for p, c in verdicts(many).items():
                whole.update(c)
                per.setdefault(p, Counter()).update(c)
        print(f"mlir-opt-{v}: unknown share, default pipeline {share(alone)}; "
              f"portfolio {share(whole)}")
        for p, c in sorted(per.items()):
            print(f"    {share(c):>20}  {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
