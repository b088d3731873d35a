#!/usr/bin/env python3
"""Kill a running campaign at random moments and check its results file.

Run by hand (not in CI): starts `gpu-alloc-verify fuzz --results FILE`, kills
it with SIGKILL after a random delay, checks the file, continues the campaign
with `--resume`, kills again, ... N times.  A campaign that finishes before
its kill is followed by a new one.  After every kill:

- every line is a JSON object, except a torn last line that
  `verify.model.results.read_records` skips (counted as "torn lines");
- the file only grew: the bytes before the kill are unchanged (the writer may
  only add the newline that seals a torn line);
- every program recorded before stays recorded, no program is recorded twice
  in a campaign, every program record is complete.

Prints: kills, resumes, campaigns finished, programs recorded, torn lines,
invalid files (must be 0), time.  Exit status 1 if any check failed.

    .venv/bin/python scripts/kill_stress.py --kills 200
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from gpu_alloc_verify.verify.model.results import read_records  # noqa: E402

PROGRAM_KEYS = ("campaign", "id", "program", "features", "results", "found")


class Checker:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.before = b""
        self.programs: dict[str, set[str]] = {}
        self.torn = 0
        self.problems: list[str] = []

    def check(self, label: str) -> list[str]:
        problems = []
        data = self.path.read_bytes() if self.path.exists() else b""
        if not data.startswith(self.before):
            problems.append("bytes written before the kill changed")
        lines = data.split(b"\n")
        tail = lines.pop()
        torn_inside = 0
        for k, ln in enumerate(lines):
            if not ln:
                continue
            try:
                rec = json.loads(ln)
            except ValueError:
                # A torn line sealed by the next writer: allowed, and skipped by readers.
                torn_inside += 1
                continue
            if not isinstance(rec, dict):
                problems.append(f"line {k + 1} is not an object")
        if tail:
            try:
                json.loads(tail)
                problems.append("last record has no newline but parses")
            except ValueError:
                pass
        records = read_records(self.path) if data else []
        seen: dict[str, set[str]] = {}
        for r in records:
            if r.get("kind") != "program":
                continue
            missing = [k for k in PROGRAM_KEYS if k not in r]
            if missing:
                problems.append(f"program record {r.get('id')} lacks {missing}")
                continue
            texts = seen.setdefault(r["campaign"], set())
            if r["program"] in texts:
                problems.append(f"program recorded twice in campaign {r['campaign']}")
            texts.add(r["program"])
        for cid, texts in self.programs.items():
            lost = texts - seen.get(cid, set())
            if lost:
                problems.append(f"{len(lost)} program(s) of {cid} no longer recorded")
        self.programs = seen
        self.before = data
        self.torn = torn_inside + (1 if tail else 0)
        return [f"{label}: {p}" for p in problems]

    def unfinished(self) -> bool:
        if not self.path.exists():
            return False
        from gpu_alloc_verify.verify.model.results import unfinished_campaign

        return unfinished_campaign(read_records(self.path)) is not None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--lowering", default="xdsl:pr69969")
    ap.add_argument("--max-examples", type=int, default=600)
    ap.add_argument("--batch-size", type=int, default=10)
    ap.add_argument("--min-delay", type=float, default=0.3, help="seconds after start")
    ap.add_argument("--max-delay", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=0, help="of the kill moments")
    ap.add_argument("--results", type=Path, help="default: a temporary file")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="kill-stress-")
    results = args.results or Path(tmp.name) / "results.jsonl"
    checker = Checker(results)
    base = [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--results", str(results),
            "--batch-size", str(args.batch_size), "--no-shrink"]
    t0 = time.monotonic()
    kills = resumes = finished = started = invalid = torn_max = 0
    problems: list[str] = []
    while kills < args.kills:
        if checker.unfinished():
            cmd = [*base, "--resume"]
            resumes += 1
        else:
            cmd = [*base, "--lowering", args.lowering, "--max-examples",
                   str(args.max_examples), "--seed", str(rng.randrange(2**20))]
            started += 1
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        delay = rng.uniform(args.min_delay, args.max_delay)
        try:
            _, err = proc.communicate(timeout=delay)
            finished += 1
            label = "finished run"
            # 0, 1 and 3 are a campaign's verdicts (none, violations, some
            # unknown); a run that ends on its own must have completed it.
            if proc.returncode not in (0, 1, 3) or checker.unfinished():
                problems.append(f"run exited {proc.returncode} without campaign-end: "
                                f"{err.decode(errors='replace')[-300:]}")
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            kills += 1
            label = f"kill {kills} at {delay:.2f}s"
        found = checker.check(label)
        torn_max = max(torn_max, checker.torn)
        if found:
            invalid += 1
            problems += found
        if kills and kills % 20 == 0 and label.startswith("kill"):
            print(f"... {kills} kills, {sum(map(len, checker.programs.values()))} programs",
                  file=sys.stderr)
    programs = sum(map(len, checker.programs.values()))
    print(f"kills: {kills}")
    records = read_records(results) if results.exists() else []
    ended = sum(1 for r in records if r.get("kind") == "campaign-end")
    print(f"runs: {started} fresh, {resumes} with --resume; {finished} ran to the end "
          "before their kill")
    print(f"programs recorded: {programs} in {len(checker.programs)} campaign(s), "
          f"{ended} of them complete (campaign-end)")
    print(f"torn lines in the file: {checker.torn} (most seen at once: {torn_max})")
    print(f"invalid files: {invalid}")
    print(f"time: {time.monotonic() - t0:.0f}s")
    for p in problems[:20]:
        print(f"  ! {p}")
    tmp.cleanup()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
