"""How `check` scales with the size of a user's file (issue 26's figure).

    .venv/bin/python scripts/scale_check.py [--ops 5000] [--lowering mlir-opt-19]

Writes files of about `--ops` ops in the shapes large host code takes and
runs the real CLI on each, one at a time: wall time, the largest resident
size of any process it ran (the harness, each mlir-opt) and the verdict
counts.  (`check` shows progress on a terminal only, never in a pipe:
tests/cli/test_check_progress.py.)  The shapes:
- chain: one buffer, a dependency chain of async memsets;
- fan: many buffers, each allocated, set and freed on its own stream;
- init-loop: a host init loop of 10,000 iterations (no GPU op inside)
  around a few async ops;
- helpers: the chain split into helper functions called in turn.
Timings are this machine's; the issue asks for under 10 s and 500 MB.
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--lowering", default="mlir-opt-19")
    ap.add_argument("--shape", choices=sorted(SHAPES), action="append")
    args = ap.parse_args()
    print(f"{'shape':10s} {'ops':>6s} {'wall s':>7s} {'peak MB':>8s}  verdicts")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.shape or list(SHAPES):
            text = SHAPES[name](args.ops)
            path = Path(tmp) / f"{name}.mlir"
            path.write_text(text)
            ops = sum(1 for line in text.splitlines() if "=" in line or "gpu." in line
                      or "memref.store" in line or "call @" in line)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", _MEASURED, str(path), args.lowering],
                                  capture_output=True, text=True)
            wall = time.perf_counter() - start
            *rest, last = proc.stderr.rstrip("\n").split("\n")
            peak = int(last) / 1024 if last.isdigit() else float("nan")
            proc.stderr = "\n".join(rest)
            summary = re.search(r"\d+ holds?.*", proc.stdout)
            print(f"{name:10s} {ops:6d} {wall:7.1f} {peak:8.0f}  "
                  f"exit {proc.returncode}: {summary.group(0) if summary else proc.stdout[-200:]}")
            if "Traceback" in proc.stderr:
                print(proc.stderr[-2000:])
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
