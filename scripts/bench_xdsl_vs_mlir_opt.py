"""Per-program cost: in-process xDSL lowering vs a batched real mlir-opt.

- in-process: `Program` -> lowered xDSL module (build, convert), each
  program timed on its own; also the cost of printing the result as text;
- mlir-opt batched: all programs through one `mlir-opt --split-input-file`
  process (MlirOptLowering.lower_batch), divided by the count, plus the
  per-program time xDSL takes to parse each output back (what the harness
  must do with a real tool's text).

Usage: python scripts/bench_xdsl_vs_mlir_opt.py [-n 200] [--variant pr69969]
       [--mlir-opt mlir-opt-19] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from xdsl.context import Context  # noqa: E402
from xdsl.dialects import get_all_dialects  # noqa: E402
from xdsl.parser import Parser  # noqa: E402

from generators.programs import GenConfig, programs  # noqa: E402
from verify.lowerings.mlir_opt import resolve_mlir_opt  # noqa: E402
from verify.lowerings.xdsl_lowering import print_lowered, resolve_xdsl  # noqa: E402
from verify.program import Program  # noqa: E402


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="programs (default 200)")
    ap.add_argument("--variant", default="pr69969", help="xdsl variant (default pr69969)")
    ap.add_argument("--mlir-opt", default="mlir-opt-19", help="spec of the real tool")
    ap.add_argument("--repeat", type=int, default=3, help="repeats of the batch (default 3)")
    args = ap.parse_args()

    progs = generate(args.n)
    n = len(progs)
    xdsl = resolve_xdsl(f"xdsl:{args.variant}")
    real = resolve_mlir_opt(args.mlir_opt, "gpu-to-llvm")

    # In-process, one program at a time.
    lower_t: list[float] = []
    print_t: list[float] = []
    for p in progs:
        t0 = time.perf_counter()
        module = xdsl.lower_module(p)
        t1 = time.perf_counter()
        print_lowered(module)
        t2 = time.perf_counter()
        lower_t.append(t1 - t0)
        print_t.append(t2 - t1)

    # The real tool, batched: one process per batch.
    batch_t: list[float] = []
    outcomes = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        outcomes = real.lower_batch(progs)
        batch_t.append((time.perf_counter() - t0) / n)

    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    parse_t: list[float] = []
    for o in outcomes:
        if o.status != "ok":
            continue
        t0 = time.perf_counter()
        Parser(ctx, o.lowered).parse_module()
        parse_t.append(time.perf_counter() - t0)

    # The harness's default reader since the fast parser (verify/fastparse.py).
    from verify.lowered_ir import read_lowered

    fast_t: list[float] = []
    for o in outcomes:
        if o.status == "ok":
            t0 = time.perf_counter()
            read_lowered(o.lowered)
            fast_t.append(time.perf_counter() - t0)

    in_process = statistics.median(lower_t)
    batched = statistics.median(batch_t)  # a batch only gives a mean per program
    parse = statistics.median(parse_t) if parse_t else 0.0
    statuses = {s: sum(o.status == s for o in outcomes) for s in ("ok", "rejected", "crash")}
    print(f"{n} programs (ops per program: median "
          f"{statistics.median(p.op_count() for p in progs)}); {args.mlir_opt} outcomes "
          f"{statuses}")
    print(f"in-process xdsl:{args.variant}: Program -> lowered module   median {ms(in_process)}"
          f"  mean {ms(statistics.mean(lower_t))}")
    print(f"  (+ printing it as text)                   median "
          f"{ms(statistics.median(print_t))}  mean {ms(statistics.mean(print_t))}")
    print(f"{args.mlir_opt} batched, per program (batch time / {n}, median of {args.repeat})"
          f" {ms(batched)}")
    print(f"  + xDSL parse of each output               median {ms(parse)}"
          f"  mean {ms(statistics.mean(parse_t) if parse_t else 0.0)} ({len(parse_t)} outputs)")
    total = batched + parse
    total_mean = batched + (statistics.mean(parse_t) if parse_t else 0.0)
    print(f"{args.mlir_opt} path total                   median {ms(total)}"
          f"  mean {ms(total_mean)}")
    print(f"ratio (mlir-opt path / in-process): {total / in_process:.2f}x on medians, "
          f"{total_mean / statistics.mean(lower_t):.2f}x on means")
    fast = statistics.median(fast_t) if fast_t else 0.0
    print(f"  + fast parse of each output (default)     median {ms(fast)}")
    print(f"{args.mlir_opt} path with the fast parser  median {ms(batched + fast)}; "
          f"ratio (mlir-opt path / in-process): {(batched + fast) / in_process:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
