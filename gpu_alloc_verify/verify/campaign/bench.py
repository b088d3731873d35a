"""`gpu-alloc-verify bench`: what each stage costs per program, and whether
the harness keeps up with the lowering it tests.

A fixed, seeded set of programs (`--programs` per size, generator sizes
5/10/20/40 ops; the generator's op count varies, so the mean is reported)
is checked end to end as a campaign does it: on `-j` worker processes, each
generating its share (one per process, the same mix of sizes), lowering it in
one batch per process and judging every solver invariant (generation to
verdict).  In the same run the same programs
are lowered alone, in one batch, in this one process: that throughput is the
floor the harness is measured against.  The two alternate `--repeat` times
and each throughput is the median of its runs (shared machines are noisy:
the same batch can take a third longer from one run to the next).  Per-stage costs (medians per
program, per size) show where the time goes and how it grows with size;
`execute` (the `differential` invariant, which runs programs) is timed on a
sample and is not part of the end-to-end figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.generators.hypothesis_private import draw_seeded
from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.campaign.parallel import map_shares
from gpu_alloc_verify.verify.extract.calls import extract
from gpu_alloc_verify.verify.invariants import CHECKERS, CheckContext
from gpu_alloc_verify.verify.invariants.options import CAMPAIGN_TRUTH, DEFAULT_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import NO_CRASH, Judgement, judge
from gpu_alloc_verify.verify.ir.lowered_ir import read_lowered
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.registry import default_spec, resolve
from gpu_alloc_verify.verify.model.machine import default_jobs
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.source.of_program import source_facts

SIZES = (5, 10, 20, 40)
STAGES = ("generate", "print", "lower", "parse/extract", "solve", "truth", "execute")
EXECUTE_SAMPLE = 8  # programs per size run by the `differential` invariant
REPEATS = 3  # alternating lowering-only and end-to-end runs; medians reported
SEED = 0


def solver_invariants() -> list[InvariantId]:
    try:
        from gpu_alloc_verify.verify.invariants import SOLVER_INVARIANTS
    except ImportError:
        return [i for i in CHECKERS if i != InvariantId.DIFFERENTIAL]
    return list(SOLVER_INVARIANTS)


# -- seeded programs ----------------------------------------------------------

_strategies: dict[int, Any] = {}


def draw_program(size: int, index: int, seed: int = SEED) -> Program:
    """Program `index` of generator size `size`: the same for the same seed,
    in any process, without running a Hypothesis test around it."""
    strategy = _strategies.get(size)
    if strategy is None:
        strategy = _strategies[size] = programs(GenConfig(max_ops=size))
    for attempt in range(100):
        program = draw_seeded(strategy, f"{seed}:{size}:{index}:{attempt}")
        if program is not None:
            return program
    raise RuntimeError(f"no program drawn for size {size}, index {index}")


def seeded_programs(size: int, n: int, seed: int = SEED) -> list[Program]:
    return [draw_program(size, i, seed) for i in range(n)]


# -- measurement ----------------------------------------------------------------


@dataclass
class Cost:
    """Seconds one program spent in each stage of the end-to-end run."""

    size: int
    ops: int
    stages: dict[str, float] = field(default_factory=dict)


def _cpu_s() -> float:
    """CPU seconds of this process and its waited-for children (mlir-opt)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _e2e_share(args: tuple[Any, ...]) -> tuple[list[Cost], list[Judgement], float, float]:
    """A worker's share of the campaign: generate, lower in one batch, judge."""
    lowering, items, seed, check = args
    cpu = _cpu_s()
    costs: list[Cost] = []
    progs: list[Program] = []
    for size, index in items:
        start = time.perf_counter()
        program = draw_program(size, index, seed)
        costs.append(Cost(size, program.op_count(),
                          {"generate": time.perf_counter() - start}))
        progs.append(program)
    start = time.perf_counter()
    outcomes = lowering.lower_batch(progs)
    lower_s = time.perf_counter() - start
    rows: list[Judgement] = []
    for cost, program, outcome in zip(costs, progs, outcomes, strict=True):
        timings: dict[str, float] = {}
        rows.append(judge(program, outcome, lowering.spec, check, timings=timings))
        cost.stages["parse"] = timings.get("parse", 0.0)
        cost.stages["extract"] = timings.get("extract", 0.0)
        cost.stages["parse/extract"] = cost.stages["parse"] + cost.stages["extract"]
        cost.stages["truth"] = timings.get("ground-truth", 0.0)
        cost.stages["solve"] = sum(v for k, v in timings.items()
                                   if k not in ("parse", "extract", "ground-truth"))
    return costs, rows, lower_s, _cpu_s() - cpu


@dataclass
class SpecResult:
    spec: str
    programs: int
    jobs: int
    e2e_s: float
    lower_only_s: float
    costs: list[Cost]
    lower_per_size: dict[int, float]  # seconds per program, batched per size
    print_s: dict[int, list[float]]
    execute_s: dict[int, list[float]]
    verdicts: dict[str, int]
    lower_e2e_s: float = 0.0  # the workers' lowering, all shares together
    e2e_cpu_s: float = 0.0  # CPU of the end-to-end work (workers and their mlir-opt)
    lower_only_cpu_s: float = 0.0
    e2e_runs_s: list[float] = field(default_factory=list)  # wall of each repeat
    lower_only_runs_s: list[float] = field(default_factory=list)

    @property
    def cpu_ratio(self) -> float:
        """The ratio `jobs` idle cores would give: end-to-end work is CPU-bound,
        so its throughput there is jobs / (CPU per program)."""
        if not self.e2e_cpu_s:
            return float("nan")
        return self.jobs * self.lower_only_cpu_s / self.e2e_cpu_s

    def breakdown(self) -> dict[str, float]:
        """Seconds of one end-to-end run's work in each stage, all workers together."""
        runs = max(1, len(self.e2e_runs_s))
        out = {stage: sum(c.stages.get(stage, 0.0) for c in self.costs) / runs
               for stage in ("generate", "parse", "extract", "solve", "truth")}
        out["lower"] = self.lower_e2e_s
        return out

    @property
    def programs_per_s(self) -> float:
        return self.programs / self.e2e_s

    @property
    def lowering_only_per_s(self) -> float:
        return self.programs / self.lower_only_s

    def by_size(self, size: int | None) -> dict[str, float]:
        """Median ms per program of each stage, for one size (None: all)."""
        costs = [c for c in self.costs if size is None or c.size == size]
        sizes = [size] if size is not None else list(self.print_s)
        out: dict[str, float] = {"mean_ops": statistics.fmean(c.ops for c in costs)}
        for stage in ("generate", "print", "lower", "parse/extract", "parse", "extract",
                      "solve", "truth", "execute"):
            if stage == "lower":  # one batch: its mean
                out[stage] = 1e3 * (self.lower_per_size[size] if size is not None
                                    else self.lower_only_s / self.programs)
                continue
            if stage == "print":
                values = [v for s in sizes for v in self.print_s.get(s, [])]
            elif stage == "execute":
                values = [v for s in sizes for v in self.execute_s.get(s, [])]
            else:
                values = [c.stages[stage] for c in costs if stage in c.stages]
            out[stage] = 1e3 * statistics.median(values) if values else float("nan")
        return out


def _lower_only(lowering: Lowering, progs: Sequence[Program]) -> tuple[float, float]:
    """Wall and CPU seconds of lowering `progs` in one batch."""
    cpu, start = _cpu_s(), time.perf_counter()
    lowering.lower_batch(progs)
    return time.perf_counter() - start, _cpu_s() - cpu


def _execute_costs(lowering: Lowering, progs: Sequence[Program], runtime: str) -> list[float]:
    check = CHECKERS.get(InvariantId.DIFFERENTIAL)
    if check is None:
        return []
    out: list[float] = []
    for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
        if outcome.status != "ok":
            continue
        module = outcome.module if outcome.module is not None else read_lowered(outcome.lowered)
        src = source_facts(program)
        ctx = CheckContext(program, src, extract(module, src.lowered_arg_names), module,
                           outcome.lowered, runtime)
        start = time.perf_counter()
        try:
            check(ctx)
        except Exception as e:  # noqa: BLE001 - the bench reports, the tests judge
            print(f"bench: differential failed on a program: {e!r}", file=sys.stderr)
            continue
        out.append(time.perf_counter() - start)
    return out


def e2e_shares(n: int, jobs: int) -> list[list[int]]:
    """One share per worker, each the same mix of sizes (`items` are in size
    order: every `jobs`-th one), as a campaign batch of the default size is
    cut (`verify.campaign.parallel.shares`: 100 programs on -j 2 are two shares of
    50).  `shares` would cut the bench's 160 programs into 60 + 50 + 50, and
    one of two workers would do two shares while the other waits."""
    return [list(range(k, n, max(1, jobs))) for k in range(min(max(1, jobs), n))]


def _e2e_run(lowering: Lowering, items: list[tuple[int, int]], seed: int,
             check: CheckOptions, jobs: int
             ) -> tuple[float, float, float, list[Cost], dict[str, int]]:
    """One end-to-end campaign over `items`: wall, CPU and lowering seconds,
    per-program costs and the verdict counts."""
    parts = e2e_shares(len(items), jobs)
    tasks = [(lowering, [items[i] for i in idx], seed, check) for idx in parts]
    start = time.perf_counter()
    results = map_shares(_e2e_share, tasks, jobs)
    wall = time.perf_counter() - start
    verdicts: dict[str, int] = {}
    costs: list[Cost] = []
    lower_s = cpu_s = 0.0
    for share_costs, rows, share_lower_s, share_cpu_s in results:
        costs += share_costs
        lower_s += share_lower_s
        cpu_s += share_cpu_s
        for j in rows:
            for r in j.results.values():
                verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    return wall, cpu_s, lower_s, costs, verdicts


def bench_options() -> CheckOptions:
    """Judged as a campaign judges (every violation's witness run, the holds of
    the default share cross-checked: `truth` is that stage), on every solver
    invariant."""
    return CheckOptions((NO_CRASH, *solver_invariants()), truth=CAMPAIGN_TRUTH)


def bench_spec(lowering: Lowering, per_size: int, jobs: int, seed: int = SEED,
               check: CheckOptions | None = None,
               execute_sample: int = EXECUTE_SAMPLE, repeats: int = REPEATS) -> SpecResult:
    """The lowering alone and the end-to-end campaign, alternately `repeats`
    times: each throughput is the median of its runs, so a burst of load on
    a shared machine moves one run, not the ratio.  `check`: default
    `bench_options()`."""
    items = [(size, i) for size in SIZES for i in range(per_size)]
    check = check or bench_options()

    # The same programs, made here (untimed) for the lowering-only runs.
    progs = {size: seeded_programs(size, per_size, seed) for size in SIZES}
    everything = [p for size in SIZES for p in progs[size]]
    # Warm the tool's pages, and the harness's caches here: the workers, forked
    # at the first end-to-end run, inherit them warm, as a campaign's
    # long-lived workers have them after their first batch.  Programs of
    # another seed, so that no result of the measured ones is reused.
    warm = [draw_program(size, 0, seed + 1) for size in SIZES]
    for program, outcome in zip(warm, lowering.lower_batch(warm), strict=True):
        judge(program, outcome, lowering.spec, check.replace(truth=DEFAULT_TRUTH))
    lower_per_size = {s: _lower_only(lowering, progs[s])[0] / max(1, len(progs[s]))
                      for s in SIZES}
    print_s: dict[int, list[float]] = {}
    for size in SIZES:
        for p in progs[size]:
            start = time.perf_counter()
            p.to_mlir()
            print_s.setdefault(size, []).append(time.perf_counter() - start)

    lower_runs: list[tuple[float, float]] = []
    e2e_runs: list[tuple[float, float, float]] = []
    costs: list[Cost] = []
    verdicts: dict[str, int] = {}
    for _ in range(max(1, repeats)):
        lower_runs.append(_lower_only(lowering, everything))
        # End to end, as a campaign runs: workers generate, lower and judge.
        wall, cpu_s, lower_s, run_costs, verdicts = _e2e_run(
            lowering, items, seed, check, jobs)
        e2e_runs.append((wall, cpu_s, lower_s))
        costs += run_costs

    execute_s = {s: _execute_costs(lowering, progs[s][:execute_sample], check.runtime)
                 for s in SIZES} if execute_sample else {}
    median = statistics.median
    return SpecResult(lowering.spec, len(items), jobs,
                      median(r[0] for r in e2e_runs), median(r[0] for r in lower_runs),
                      costs, lower_per_size, print_s, execute_s, verdicts,
                      median(r[2] for r in e2e_runs), median(r[1] for r in e2e_runs),
                      median(r[1] for r in lower_runs),
                      [r[0] for r in e2e_runs], [r[0] for r in lower_runs])


# -- report ---------------------------------------------------------------------


def _fmt(v: float) -> str:
    return "     n/a" if v != v else f"{v:8.3f}"


def table(res: SpecResult, pipeline: str) -> str:
    cols = [*SIZES, None]
    rows = {c: res.by_size(c) for c in cols}
    head = "".join(f"{'size ' + str(c) if c else 'all':>10}" for c in cols)
    lines = [f"{res.spec} ({pipeline}): {res.programs} programs, -j {res.jobs}",
             f"{'median ms per program':24}{head}",
             f"{'mean ops':24}" + "".join(f"{rows[c]['mean_ops']:10.1f}" for c in cols)]
    labels = {"lower": "lower (batched, mean)", "parse": "  parse", "extract": "  extract",
              "truth": "ground truth", "execute": "execute (sample)"}
    for stage in ("generate", "print", "lower", "parse/extract", "parse", "extract", "solve",
                  "truth", "execute"):
        lines.append(f"{labels.get(stage, stage):24}"
                     + "".join(f"  {_fmt(rows[c][stage])}" for c in cols))
    lines.append(f"{'extract per op (us)':24}" + "".join(
        f"  {_fmt(1e3 * rows[c]['extract'] / max(rows[c]['mean_ops'], 1e-9))}" for c in cols))
    ratio = res.programs_per_s / res.lowering_only_per_s
    work = res.breakdown()
    total = sum(work.values()) or 1.0
    lines.append("end-to-end work by stage (mean ms per program, share): " + ", ".join(
        f"{k} {1e3 * v / res.programs:.2f} ({100 * v / total:.0f}%)"
        for k, v in sorted(work.items(), key=lambda kv: -kv[1])))
    lines += [
        f"end to end (generation to verdict, -j {res.jobs}): {res.programs_per_s:8.1f} programs/s",
        f"lowering alone (1 process, batched):       {res.lowering_only_per_s:8.1f} programs/s",
        f"ratio: {ratio:.2f} (target >= 0.5; medians of {len(res.e2e_runs_s)} alternating runs, "
        "programs/s per run: end to end " + " ".join(
            f"{res.programs / w:.0f}" for w in res.e2e_runs_s)
        + ", lowering alone " + " ".join(f"{res.programs / w:.0f}" for w in res.lower_only_runs_s)
        + ")",
        f"CPU per program: end to end {1e3 * res.e2e_cpu_s / res.programs:.2f} ms, lowering "
        f"alone {1e3 * res.lower_only_cpu_s / res.programs:.2f} ms: on {res.jobs} idle "
        f"core(s) the ratio would be {res.cpu_ratio:.2f}",
        "verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(res.verdicts.items())),
    ]
    return "\n".join(lines)


def _no_nan(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, float) and value != value:
        return None
    return value


def run_bench(args: argparse.Namespace) -> int:
    pipeline = getattr(args, "pipeline", None) or DEFAULT_PIPELINE
    specs = list(getattr(args, "lowering", None) or [])
    if not specs:
        spec, why = default_spec()
        print(f"lowering: {spec} ({why})", file=sys.stderr)
        specs = [spec]
    per_size = max(1, int(getattr(args, "programs", 200) or 200))
    jobs = getattr(args, "jobs", None) or default_jobs()
    as_json = bool(getattr(args, "json", False))
    repeats = max(1, int(getattr(args, "repeat", REPEATS) or REPEATS))
    out: dict[str, Any] = {"programs_per_s": {}, "lowering_only_per_s": {},
                                      "ratio": {}, "cpu_ratio": {}, "stages_ms": {}, "by_size": {},
                           "work_ms_per_program": {}, "runs_programs_per_s": {}}
    for spec in specs:
        res = bench_spec(resolve(spec, pipeline), per_size, jobs, repeats=repeats)
        overall = res.by_size(None)
        out["programs_per_s"][spec] = res.programs_per_s
        out["lowering_only_per_s"][spec] = res.lowering_only_per_s
        out["ratio"][spec] = res.programs_per_s / res.lowering_only_per_s
        out["cpu_ratio"][spec] = res.cpu_ratio
        out["runs_programs_per_s"][spec] = {
            "end_to_end": [res.programs / w for w in res.e2e_runs_s],
            "lowering_only": [res.programs / w for w in res.lower_only_runs_s]}
        out["stages_ms"][spec] = {s: overall[s] for s in STAGES}
        out["by_size"][spec] = {str(s): res.by_size(s) for s in SIZES}
        out["work_ms_per_program"][spec] = {k: 1e3 * v / res.programs
                                            for k, v in res.breakdown().items()}
        if not as_json:
            print(table(res, pipeline))
            print()
    if as_json:
        out["jobs"] = jobs
        out["programs"] = per_size * len(SIZES)
        out["repeats"] = repeats
        print(json.dumps(_no_nan(out), indent=2))
    return 0
