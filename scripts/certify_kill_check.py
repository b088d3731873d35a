"""Kill a cluster certificate mid-run (a worker, then the scheduler) and
resume it; check it ends with the same certificate as an uninterrupted run.

    .venv/bin/python scripts/certify_kill_check.py --ops 3 --lowering xdsl:reference

With `--cluster local:N` the scheduler lives in the driver process, so the
second kill takes the driver, the scheduler and every worker down at once;
the rerun of the same command resumes from the results file.  Prints the
digest, the counts of both runs and the time of each step; exits 1 when the
certificates differ.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gpu_alloc_verify.verify.certify.certificate import comparable

CLI = [sys.executable, "-m", "gpu_alloc_verify", "certify"]


def _descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for kid in kids.get(todo.pop(), []):
            out.append(kid)
            todo.append(kid)
    return out


def _recorded(out: Path) -> int:
    path = out / "results.jsonl"
    return path.read_text().count('"certify-program"') if path.exists() else 0


def _wait_for(out: Path, n: int, proc: subprocess.Popen[bytes], limit_s: float) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        got = _recorded(out)
        if got >= n:
            return got
        time.sleep(0.2)
    return _recorded(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=3)
    ap.add_argument("--lowering", action="append", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="out/certify-kill-check")
    args = ap.parse_args()
    lowerings = [a for spec in args.lowering or ["xdsl:reference"] for a in ("--lowering", spec)]
    base = Path(args.out)
    whole, killed = base / "uninterrupted", base / "killed"
    for d in (whole, killed):
        if (d / "results.jsonl").exists():
            (d / "results.jsonl").unlink()
    common = ["--ops", str(args.ops), *lowerings]
    cluster = ["--cluster", f"local:{args.workers}"]

    t0 = time.monotonic()
    subprocess.run([*CLI, "--out", str(whole), *common, *cluster], capture_output=True,
                   check=False)
    t_whole = time.monotonic() - t0
    total = json.loads((whole / "certificate.json").read_text())["enumeration"]["programs"]
    total *= len(args.lowering or ["xdsl:reference"])

    t0 = time.monotonic()
    proc = subprocess.Popen([*CLI, "--out", str(killed), *common, *cluster],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    at_worker = _wait_for(killed, total // 4, proc, 600)
    workers = [p for p in _descendants(proc.pid) if not _descendants(p)]
    if workers:
        os.kill(workers[-1], signal.SIGKILL)
    print(f"killed worker pid {workers[-1] if workers else '-'} at {at_worker}/{total}")
    at_sched = _wait_for(killed, total // 2, proc, 600)
    os.killpg(proc.pid, signal.SIGKILL)  # driver, scheduler and workers at once
    proc.wait()
    print(f"killed the scheduler (driver) at {at_sched}/{total}")
    subprocess.run([*CLI, "--out", str(killed), *common, *cluster], capture_output=True,
                   check=False)
    t_killed = time.monotonic() - t0

    a = json.loads((whole / "certificate.json").read_text())
    b = json.loads((killed / "certificate.json").read_text())
    same = comparable(a) == comparable(b)
    lines = (killed / "results.jsonl").read_text().count('"certify-program"')
    print(f"digest {a['enumeration']['digest'][:16]} / {b['enumeration']['digest'][:16]}; "
          f"programs {a['enumeration']['programs']}; records after resume {lines} "
          f"(expected {total})")
    for ta, tb in zip(a["targets"], b["targets"], strict=True):
        print(f"  {ta['name']}: {ta['verdicts'] == tb['verdicts']} verdict counts equal; "
              f"{len(ta['violations'])} / {len(tb['violations'])} root causes")
    print(f"uninterrupted {t_whole:.0f}s; killed twice and resumed {t_killed:.0f}s; "
          f"certificates {'identical' if same else 'DIFFER'}")
    return 0 if same and lines == total else 1


if __name__ == "__main__":
    sys.exit(main())
