"""Time to find each known defect from the defaults (issue 40).

Runs the default `gpu-alloc-verify fuzz` (no flag but the lowering, the
seed and the size; --no-shrink, since shrinking comes after finding; in this
process, without the summary's triage) on each version and seed, then
triages each campaign and prints, per known defect, the ordinal of the first
program whose root cause is that defect and the seconds from the campaign's
start until that program's record was written (records are written a batch
at a time: that is when the campaign knew).  A defect is matched by its
triage root-cause slug (`Signature.slug`, docs/findings.md); a knock-on
counts only if, reduced as `triage` reduces, it shows with no op left
unconverted.

Each pipeline of the portfolio is triaged apart, so that a root cause's
earliest program is the first one triage adds to it (triage keeps five per
root cause, in the order it judges them: one pipeline after another).

    .venv/bin/python scripts/time_to_find.py                  # 19 and 22, 5 seeds, 300
    .venv/bin/python scripts/time_to_find.py --seeds 2 --out docs/time_to_find.md
    .venv/bin/python scripts/time_to_find.py --reuse --dir D  # analyse D's results only
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpu_alloc_verify.verify.campaign.fuzz import run_fuzz  # noqa: E402
from gpu_alloc_verify.verify.cli.fuzz import new_options  # noqa: E402
from gpu_alloc_verify.verify.cli.parser import build_parser  # noqa: E402
from gpu_alloc_verify.verify.model.results import read_records  # noqa: E402
from gpu_alloc_verify.verify.triage.buckets import triage_records  # noqa: E402
from gpu_alloc_verify.verify.triage.kinds import KNOCK_ON  # noqa: E402
from gpu_alloc_verify.verify.triage.knockon import reduce_bucket  # noqa: E402

# (what the issue calls it, the slug prefixes that are that defect)
DEFECTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("`gpu.wait async [%t]` stream leak", ("stream-leak-wait-async-dep",)),
    # Triage names handle defects by mechanism (signature.MECHANISMS); the
    # symptom slugs of earlier catalogues are kept so older results still read.
    ("alias double destroy", ("stream-destroyed-while-aliased", "stream-double-destroy")),
    ("async-region x `host_shared`", ("async-region-host-shared",)),
    ("control-flow token synchronized as an event", ("stream-as-event",)),
    ("event recorded outside the loop that destroys it",
     ("event-destroyed-at-each-wait", "event-use-after-destroy")),
    ("space-1 alloc's invalid IR", ("invalid-ir-alloc-dealloc-memory-space",
                                   "invalid-ir-alloc-memory-space")),
    ("64-bit memset limitation", ("memset-64bit",)),
)


@dataclass(frozen=True)
class First:
    ordinal: int  # 1-based, in the campaign's program order
    seconds: float  # from campaign-start until the program's record was written


def run_campaign(version: int, seed: int, examples: int, results: Path, jobs: int) -> float:
    """The default campaign on mlir-opt-`version` (the options `fuzz` builds
    from its command line, run in this process: its summary's triage, with
    reductions, is not part of finding); its wall time in seconds."""
    results.unlink(missing_ok=True)
    args = build_parser().parse_args([
        "fuzz", "--lowering", f"mlir-opt-{version}", "--seed", str(seed),
        "--max-examples", str(examples), "--no-shrink", "-j", str(jobs),
        "--results", str(results)])
    args.runtime = args.runtime or "cuda"  # what the CLI's defaults give a CUDA pipeline
    start = time.monotonic()
    with contextlib.redirect_stderr(io.StringIO()):
        run_fuzz(new_options(args, str(results)))
    return time.monotonic() - start


def _ordinal(rec: dict[str, Any]) -> int:
    return int(str(rec.get("id", "p0")).rsplit("-p", 1)[-1])


def _pipeline(rec: dict[str, Any]) -> str:
    results = rec.get("results") or {}
    entry = next(iter(results.values()), {}) if results else {}
    return str(entry.get("pipeline") or "") if isinstance(entry, dict) else ""


def first_finds(results: Path) -> dict[str, First]:
    """Defect name -> its first program in the campaign of `results`."""
    records = read_records(results)
    start = next(r for r in records if r.get("kind") == "campaign-start")
    programs = [r for r in records if r.get("kind") == "program"]
    by_id = {str(r.get("id")): r for r in programs}
    t0 = float(start.get("time") or min(float(r.get("time") or 0) for r in programs))
    pipelines = sorted({_pipeline(r) for r in programs})
    out: dict[str, First] = {}
    for pipeline in pipelines:
        share = [r for r in programs if _pipeline(r) == pipeline]
        triage = triage_records([start, *share], reduce=False)
        for b in triage.all_buckets():
            if not b.programs:
                continue
            slug = b.signature.slug()
            for name, prefixes in DEFECTS:
                if not any(p in slug for p in prefixes) or not _stands_alone(b):
                    continue
                rec = by_id.get(b.programs[0])
                if rec is None:
                    continue
                found = First(_ordinal(rec), float(rec.get("time") or t0) - t0)
                if name not in out or found.ordinal < out[name].ordinal:
                    out[name] = found
    return out


def _stands_alone(b: Any) -> bool:
    """Not a knock-on: triage without reduction files a bucket seen only
    beside an op left unconverted as one; reduced (as `triage` does) until no
    op is left unconverted, it may still show: then it is the defect."""
    if b.kind != KNOCK_ON:
        return True
    found = reduce_bucket(b)
    return found is not None and found.alone


def table(finds: dict[tuple[int, int], dict[str, First]], versions: list[int],
          seeds: list[int], examples: int, walls: dict[tuple[int, int], float]) -> str:
    head = ["Known defect"] + [f"mlir-opt-{v}: found in / median ordinal (s)" for v in versions]
    head += [f"{v}, per seed: ordinal (s)" for v in versions]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, _ in DEFECTS:
        cells = [name]
        per_seed = []
        for v in versions:
            got = [finds[(v, s)].get(name) for s in seeds]
            hits = [g for g in got if g is not None]
            med = (f"{statistics.median(g.ordinal for g in hits):g} "
                   f"({statistics.median(g.seconds for g in hits):.0f} s)") if hits else "-"
            cells.append(f"{len(hits)} of {len(seeds)} / {med}")
            per_seed.append(", ".join(f"{g.ordinal} ({g.seconds:.0f})" if g else "-"
                                      for g in got))
        lines.append("| " + " | ".join(cells + per_seed) + " |")
    total = ", ".join(f"mlir-opt-{v}: {statistics.median(walls[(v, s)] for s in seeds):.0f} s"
                      for v in versions if all((v, s) in walls for s in seeds))
    lines += ["", f"Default `fuzz` (pipeline portfolio, --no-shrink), {examples} programs per "
              f"campaign, seeds {', '.join(map(str, seeds))}; '-': not found within "
              f"{examples} programs." + (f"  Median campaign wall time: {total}." if total
                                         else "")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", type=int, nargs="+", default=[19, 22])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default: 5)")
    ap.add_argument("--max-examples", type=int, default=300,
                    help="programs per campaign (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--dir", type=Path, default=Path("time_to_find"),
                    help="where the campaigns' results files go (default: %(default)s)")
    ap.add_argument("--reuse", action="store_true",
                    help="run nothing: analyse the results files already in --dir")
    ap.add_argument("--out", type=Path, help="also write the table (markdown) here")
    args = ap.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    seeds = list(range(args.seeds))
    finds: dict[tuple[int, int], dict[str, First]] = {}
    walls: dict[tuple[int, int], float] = {}
    for v in args.versions:
        for s in seeds:
            results = args.dir / f"mlir-opt-{v}-seed{s}.jsonl"
            cached = args.dir / f"mlir-opt-{v}-seed{s}.finds.json"
            if cached.is_file():  # a campaign this script ran and analysed already
                done = json.loads(cached.read_text())
                finds[(v, s)] = {k: First(*f) for k, f in done["finds"].items()}
                walls[(v, s)] = done["wall_s"]
                continue
            if not args.reuse:
                walls[(v, s)] = run_campaign(v, s, args.max_examples, results, args.jobs)
            finds[(v, s)] = first_finds(results)
            summary = {k: [f.ordinal, round(f.seconds, 1)] for k, f in finds[(v, s)].items()}
            if (v, s) in walls:
                cached.write_text(json.dumps({"finds": summary, "wall_s": walls[(v, s)]}))
            print(f"mlir-opt-{v} seed {s}: {json.dumps(summary)}", file=sys.stderr, flush=True)
    text = table(finds, args.versions, seeds, args.max_examples, walls)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
