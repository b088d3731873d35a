"""How `check` scales with the size of a user's file (issue 26's figure).

    .venv/bin/python scripts/scale_check.py [--ops 5000] [--lowering mlir-opt-19]

Writes files of about `--ops` ops in the shapes large host code takes and
runs the real CLI on each, one at a time: wall time, CPU seconds (the
check and every tool it ran), the largest resident size of any process it
ran (the harness, each mlir-opt) and the verdict counts.  (`check` shows
progress on a terminal only, never in a pipe:
tests/cli/test_check_progress.py.)  The shapes:
- chain: one buffer, a dependency chain of async memsets;
- fan: many buffers, each allocated, set and freed on its own stream;
- init-loop: a host init loop of 10,000 iterations (no GPU op inside)
  around a few async ops;
- helpers: the chain split into helper functions called in turn.
Timings are this machine's; the issue asks for under 10 s and 500 MB.

    .venv/bin/python scripts/scale_check.py --issue46 [--tenth] [--shape NAME]

runs issue 46's shapes instead, each at the size the issue gives (under
60 s each, a verdict or a budget `unknown`) or a tenth of it (under 10 s):
huge-memref (10^9 elements), long-loop (10^6 trips), nested-for (12
levels; 8 at a "tenth"), wide-wait (1,000 dependencies), long-function
(5 MB), many-functions (10,000).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chain(n: int) -> str:
    out = ["func.func @main() {", "  %t0 = gpu.wait async",
           "  %b, %t1 = gpu.alloc async [%t0] () : memref<64xf32>",
           "  %c = arith.constant 1.0 : f32"]
    prev = "%t1"
    for i in range(2, n):
        out.append(f"  %t{i} = gpu.memset async [{prev}] %b, %c : memref<64xf32>, f32")
        prev = f"%t{i}"
    out += [f"  %td = gpu.dealloc async [{prev}] %b : memref<64xf32>", "  gpu.wait [%td]",
            "  return", "}"]
    return "\n".join(out) + "\n"


def fan(n: int) -> str:
    out = ["func.func @main() {", "  %c = arith.constant 1.0 : f32"]
    for i in range(n // 5):
        out += [f"  %s{i} = gpu.wait async",
                f"  %b{i}, %a{i} = gpu.alloc async [%s{i}] () : memref<16xf32>",
                f"  %m{i} = gpu.memset async [%a{i}] %b{i}, %c : memref<16xf32>, f32",
                f"  %d{i} = gpu.dealloc async [%m{i}] %b{i} : memref<16xf32>",
                f"  gpu.wait [%d{i}]"]
    return "\n".join(out + ["  return", "}"]) + "\n"


def init_loop(n: int) -> str:
    body = "\n".join(f"    memref.store %v, %h[%i{k}] : memref<10000xf32>" for k in range(4))
    idx = "\n".join(f"    %i{k} = arith.addi %i, %c{k} : index" for k in range(4))
    consts = "\n".join(f"  %c{k} = arith.constant 0 : index" for k in range(4))
    return f"""func.func @main(%h: memref<10000xf32>) {{
  %c0i = arith.constant 0 : index
  %c1i = arith.constant 1 : index
  %n = arith.constant 10000 : index
  %v = arith.constant 2.0 : f32
{consts}
  scf.for %i = %c0i to %n step %c1i {{
{idx}
{body}
  }}
  %t0 = gpu.wait async
  %b, %t1 = gpu.alloc async [%t0] () : memref<10000xf32>
  %t2 = gpu.memcpy async [%t1] %b, %h : memref<10000xf32>, memref<10000xf32>
  %t3 = gpu.dealloc async [%t2] %b : memref<10000xf32>
  gpu.wait [%t3]
  return
}}
""" + chain(n).replace("@main", "@rest")


def helpers(n: int) -> str:
    per = 50
    out = []
    for h in range(max(1, n // per)):
        lines = [f"func.func @h{h}(%b: memref<64xf32>) {{", "  %c = arith.constant 1.0 : f32",
                 "  %t0 = gpu.wait async"]
        prev = "%t0"
        for i in range(1, per - 3):
            lines.append(f"  %t{i} = gpu.memset async [{prev}] %b, %c : memref<64xf32>, f32")
            prev = f"%t{i}"
        lines += [f"  gpu.wait [{prev}]", "  return", "}"]
        out += lines
    calls = [f"  call @h{h}(%b) : (memref<64xf32>) -> ()" for h in range(max(1, n // per))]
    # Async alloc and dealloc: gpu-to-llvm leaves the synchronous forms.
    out += ["func.func @main() {", "  %s = gpu.wait async",
            "  %b, %ta = gpu.alloc async [%s] () : memref<64xf32>", "  gpu.wait [%ta]", *calls,
            "  %s2 = gpu.wait async", "  %td = gpu.dealloc async [%s2] %b : memref<64xf32>",
            "  gpu.wait [%td]", "  return", "}"]
    return "\n".join(out) + "\n"


# Issue 46's shapes: valid MLIR large in one direction.  Each takes its size
# as the issue gives it (`size`); `--tenth` runs a tenth of it.

def huge_memref(size: int) -> str:
    """A static memref of `size` elements, on the device and on the host."""
    return f"""func.func @main() {{
  %c0 = arith.constant 0 : index
  %v = arith.constant 7 : i8
  %h = memref.alloc() : memref<{size}xi8>
  memref.store %v, %h[%c0] : memref<{size}xi8>
  %t0 = gpu.wait async
  %b, %t1 = gpu.alloc async [%t0] () : memref<{size}xi8>
  %t2 = gpu.memset async [%t1] %b, %v : memref<{size}xi8>, i8
  %t3 = gpu.dealloc async [%t2] %b : memref<{size}xi8>
  gpu.wait [%t3]
  memref.dealloc %h : memref<{size}xi8>
  return
}}
"""


def long_loop(size: int) -> str:
    """An `scf.for` of `size` trips touching no handle, before async ops."""
    return f"""func.func @main() -> index {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {size} : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {{
    %x = arith.addi %a, %i : index
    scf.yield %x : index
  }}
  %t0 = gpu.wait async
  %b, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %t2 = gpu.dealloc async [%t1] %b : memref<16xf32>
  gpu.wait [%t2]
  return %s : index
}}
"""


def nested_for(depth: int) -> str:
    """`depth` nested `scf.for`s of 2 trips around an async memset."""
    out = ["func.func @main(%b: memref<16xf32>) {", "  %c0 = arith.constant 0 : index",
           "  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index",
           "  %f = arith.constant 1.0 : f32"]
    for d in range(depth):
        out.append("  " * (d + 1) + f"scf.for %i{d} = %c0 to %c2 step %c1 {{")
    pad = "  " * (depth + 1)
    out += [pad + "%t0 = gpu.wait async",
            pad + "%t1 = gpu.memset async [%t0] %b, %f : memref<16xf32>, f32",
            pad + "gpu.wait [%t1]"]
    out += ["  " * (d + 1) + "}" for d in reversed(range(depth))]
    return "\n".join(out + ["  return", "}"]) + "\n"


def wide_wait(deps: int) -> str:
    """One `gpu.wait async` on `deps` tokens."""
    out = ["func.func @main() {"]
    out += [f"  %t{i} = gpu.wait async" for i in range(deps)]
    out.append(f"  %all = gpu.wait async [{', '.join(f'%t{i}' for i in range(deps))}]")
    return "\n".join(out + ["  gpu.wait [%all]", "  return", "}"]) + "\n"


def long_function(nbytes: int) -> str:
    """One function of about `nbytes` bytes: wait pairs, one after another."""
    pair = "  %{0}a = gpu.wait async\n  gpu.wait [%{0}a]\n"
    count = max(1, nbytes // len(pair.format(100000)))
    return ("func.func @main() {\n" + "".join(pair.format(f"w{i}") for i in range(count))
            + "  return\n}\n")


def many_functions(count: int) -> str:
    """`count` functions of an alloc/dealloc pair, none called."""
    one = """func.func @f{0}() {{
  %t0 = gpu.wait async
  %b, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %t2 = gpu.dealloc async [%t1] %b : memref<16xf32>
  gpu.wait [%t2]
  return
}}
"""
    return "".join(one.format(i) for i in range(count))


# shape -> (writer, the size issue 46 gives)
ISSUE_46 = {"huge-memref": (huge_memref, 10**9), "long-loop": (long_loop, 1_000_000),
            "nested-for": (nested_for, 12), "wide-wait": (wide_wait, 1000),
            "long-function": (long_function, 5_000_000),
            "many-functions": (many_functions, 10_000)}


# Runs `check` in a process of its own and prints, last on stderr, the
# largest resident KB of the processes it waited for (the harness, mlir-opt).
_MEASURED = """
import resource, subprocess, sys
p = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", sys.argv[1],
                    "--lowering", sys.argv[2]])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(p.returncode)
"""

SHAPES = {"chain": chain, "fan": fan, "init-loop": init_loop, "helpers": helpers}


def _cpu() -> float:
    """User and system seconds of the child processes waited for so far."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _issue46(args: argparse.Namespace, tmp: str) -> int:
    """Issue 46's shapes at its sizes (or a tenth): wall time against the
    limit it sets (60 s, 10 s at a tenth), the verdict counts."""
    limit = 10.0 if args.tenth else 60.0
    over = 0
    # CPU seconds too (the check and every tool it ran): on a shared machine
    # the wall time is mostly waiting for a core.
    print(f"{'shape':15s} {'size':>10s} {'wall s':>7s} {'cpu s':>6s} {'limit':>6s}  verdicts")
    for name in args.shape or list(ISSUE_46):
        write, size = ISSUE_46[name]
        if args.tenth:
            size = max(1, size // 10) if name != "nested-for" else size - 4
        path = Path(tmp) / f"{name}.mlir"
        path.write_text(write(size))
        start, used = time.perf_counter(), _cpu()
        proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(path),
                               "--lowering", args.lowering], capture_output=True, text=True)
        wall, cpu = time.perf_counter() - start, _cpu() - used
        over += wall > limit
        summary = re.search(r"\d+ lowering\(s\): .*", proc.stdout)
        print(f"{name:15s} {size:10d} {wall:7.1f} {cpu:6.1f} "
              f"{'ok' if wall <= limit else 'OVER':>6s}  "
              f"exit {proc.returncode}: {summary.group(0) if summary else proc.stdout[-200:]}",
              flush=True)
        if "Traceback" in proc.stderr or "internal error" in proc.stderr:
            print(proc.stderr[-2000:])
            return 1
    return 1 if over else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--lowering", default="mlir-opt-19")
    ap.add_argument("--shape", choices=sorted({*SHAPES, *ISSUE_46}), action="append")
    ap.add_argument("--issue46", action="store_true",
                    help="issue 46's shapes at its sizes (each under 60 s), not --ops's")
    ap.add_argument("--tenth", action="store_true",
                    help="with --issue46: a tenth of each size (each under 10 s)")
    args = ap.parse_args()
    if args.issue46:
        with tempfile.TemporaryDirectory() as tmp:
            return _issue46(args, tmp)
    # CPU seconds too (the check and every tool it ran): on a shared machine
    # the wall time is mostly waiting for a core.
    print(f"{'shape':10s} {'ops':>6s} {'wall s':>7s} {'cpu s':>6s} {'peak MB':>8s}  verdicts")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.shape or list(SHAPES):
            text = SHAPES[name](args.ops)
            path = Path(tmp) / f"{name}.mlir"
            path.write_text(text)
            ops = sum(1 for line in text.splitlines() if "=" in line or "gpu." in line
                      or "memref.store" in line or "call @" in line)
            start, used = time.perf_counter(), _cpu()
            proc = subprocess.run([sys.executable, "-c", _MEASURED, str(path), args.lowering],
                                  capture_output=True, text=True)
            wall, cpu = time.perf_counter() - start, _cpu() - used
            *rest, last = proc.stderr.rstrip("\n").split("\n")
            peak = int(last) / 1024 if last.isdigit() else float("nan")
            proc.stderr = "\n".join(rest)
            summary = re.search(r"\d+ holds?.*", proc.stdout)
            print(f"{name:10s} {ops:6d} {wall:7.1f} {cpu:6.1f} {peak:8.0f}  "
                  f"exit {proc.returncode}: {summary.group(0) if summary else proc.stdout[-200:]}")
            if "Traceback" in proc.stderr:
                print(proc.stderr[-2000:])
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
