"""Per-program cost: in-process xDSL lowering vs a batched real mlir-opt,
from a source `Program` to lowered IR ready for the checks.

"Ready for the checks" is what `verify.invariants.pipeline.judge` has in hand before it
extracts facts: the outcome of the lowering and `read_lowered`'s module.

- in-process: `XdslLowering.lower(program)` (build the xDSL module, convert
  it, print the text the outcome carries: the reports and the differential
  check read it) and `read_lowered(outcome.lowered, None, outcome.module)`,
  as `judge` calls it; each program timed on its own;
- mlir-opt batched: all programs through one `mlir-opt --split-input-file`
  process (`MlirOptLowering.lower_batch`), divided by the count, plus the
  per-program time of `read_lowered` on each output (the fast reader, the
  harness's default), and, for reference, of xDSL's own parser.

Both paths end with the same kind of module (the fast reader's, unless it
declines), so fact extraction, which comes next, costs the same on both.

Usage: python scripts/bench_xdsl_vs_mlir_opt.py [-n 200] [--variant pr69969]
       [--mlir-opt mlir-opt-19] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from xdsl.context import Context  # noqa: E402
from xdsl.dialects import get_all_dialects  # noqa: E402
from xdsl.parser import Parser  # noqa: E402

from gpu_alloc_verify.generators.programs import GenConfig, programs  # noqa: E402
from gpu_alloc_verify.verify.ir.lowered_ir import read_lowered  # noqa: E402
from gpu_alloc_verify.verify.lowerings.mlir_opt import resolve_mlir_opt  # noqa: E402
from gpu_alloc_verify.verify.lowerings.xdsl_lowering import print_lowered, resolve_xdsl  # noqa: E402
from gpu_alloc_verify.verify.model.program import Program  # noqa: E402


def generate(n: int) -> list[Program]:
    out: list[Program] = []

    @settings(max_examples=n, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(programs(GenConfig(max_ops=12)))
    def grab(p: Program) -> None:
        out.append(p)

    grab()
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms"


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def avg(xs: list[float]) -> float:
    return statistics.mean(xs) if xs else 0.0


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="programs (default 200)")
    ap.add_argument("--variant", default="pr69969", help="xdsl variant (default pr69969)")
    ap.add_argument("--mlir-opt", default="mlir-opt-19", help="spec of the real tool")
    ap.add_argument("--repeat", type=int, default=3,
                    help="passes over the programs, for both paths (default 3)")
    return ap.parse_args()


@dataclass
class Timings:
    """Seconds per program of each measured step, over all passes."""

    full: list[float] = field(default_factory=list)  # in-process, Program -> ready
    module: list[float] = field(default_factory=list)  # in-process: lower_module
    printing: list[float] = field(default_factory=list)  # in-process: print the text
    read: list[float] = field(default_factory=list)  # in-process: read_lowered
    batch: list[float] = field(default_factory=list)  # mlir-opt: batch time / programs
    fast: list[float] = field(default_factory=list)  # mlir-opt: read_lowered of an output
    outcomes: list[Any] = field(default_factory=list)  # mlir-opt's, of the last pass


def measure(progs: list[Program], xdsl: Any, real: Any, repeat: int) -> Timings:
    """Each pass: in-process, one program at a time, the full path and, apart,
    its stages (which of the two goes first alternates); then the real tool,
    batched (one process per batch), and reading its outputs.  Interleaved,
    so that load on the machine falls on both paths alike."""
    t = Timings()

    def full_path() -> None:
        for p in progs:
            t0 = time.perf_counter()
            outcome = xdsl.lower(p)
            read_lowered(outcome.lowered, None, outcome.module)
            t.full.append(time.perf_counter() - t0)

    def stages() -> None:
        for p in progs:
            t0 = time.perf_counter()
            module = xdsl.lower_module(p)
            t1 = time.perf_counter()
            text = print_lowered(module)
            t2 = time.perf_counter()
            read_lowered(text, None, module)
            t3 = time.perf_counter()
            t.module.append(t1 - t0)
            t.printing.append(t2 - t1)
            t.read.append(t3 - t2)

    for i in range(repeat):
        for timed in (full_path, stages) if i % 2 == 0 else (stages, full_path):
            timed()
        t0 = time.perf_counter()
        t.outcomes = real.lower_batch(progs)
        t.batch.append((time.perf_counter() - t0) / len(progs))
        for o in t.outcomes:
            if o.status == "ok":
                t0 = time.perf_counter()
                read_lowered(o.lowered)
                t.fast.append(time.perf_counter() - t0)
    return t


def xdsl_parse_times(outcomes: list[Any]) -> list[float]:
    """Seconds xDSL's own parser takes on each lowered output."""
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    parse_t: list[float] = []
    for o in outcomes:
        if o.status == "ok":
            t0 = time.perf_counter()
            Parser(ctx, o.lowered).parse_module()
            parse_t.append(time.perf_counter() - t0)
    return parse_t


def report(args: argparse.Namespace, progs: list[Program], t: Timings,
           parse_t: list[float]) -> None:
    n = len(progs)
    in_process, in_process_mean = med(t.full), avg(t.full)
    batched = med(t.batch)  # a batch only gives a mean per program
    real_path, real_path_mean = batched + med(t.fast), batched + avg(t.fast)
    statuses = {s: sum(o.status == s for o in t.outcomes) for s in ("ok", "rejected", "crash")}
    print(f"{n} programs (ops per program: median "
          f"{statistics.median(p.op_count() for p in progs)}), {args.repeat} passes; "
          f"{args.mlir_opt} outcomes {statuses}")
    print(f"in-process xdsl:{args.variant}, Program -> IR ready for the checks: "
          f"median {ms(in_process)}  mean {ms(in_process_mean)}")
    print(f"  build and convert (lower_module)          median {ms(med(t.module))}"
          f"  mean {ms(avg(t.module))}")
    print(f"  print the outcome's text                  median {ms(med(t.printing))}"
          f"  mean {ms(avg(t.printing))}")
    print(f"  read_lowered (as judge)                   median {ms(med(t.read))}"
          f"  mean {ms(avg(t.read))}")
    print(f"{args.mlir_opt} batched, per program (batch time / {n}, median of {args.repeat})"
          f" {ms(batched)}")
    print(f"  + read_lowered of each output (fast)      median {ms(med(t.fast))}"
          f"  mean {ms(avg(t.fast))}")
    print(f"{args.mlir_opt} path, ready for the checks   median {ms(real_path)}"
          f"  mean {ms(real_path_mean)}")
    print(f"ratio (mlir-opt path / in-process): {real_path / in_process:.2f}x on medians, "
          f"{real_path_mean / in_process_mean:.2f}x on means (like with like: a batch only "
          f"gives a mean)")
    xdsl_parse = batched + med(parse_t)
    print(f"  (with xDSL's parser instead of the fast reader: {ms(xdsl_parse)} median, "
          f"ratio {xdsl_parse / in_process:.2f}x)")


def main() -> int:
    args = parse_args()
    progs = generate(args.n)
    xdsl = resolve_xdsl(f"xdsl:{args.variant}")
    real = resolve_mlir_opt(args.mlir_opt, "gpu-to-llvm")
    timings = measure(progs, xdsl, real, args.repeat)
    report(args, progs, timings, xdsl_parse_times(timings.outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
