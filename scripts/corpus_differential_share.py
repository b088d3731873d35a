"""How often `differential` is decided on tests/corpus (issue 27's figure).

    .venv/bin/python scripts/corpus_differential_share.py [--lowering mlir-opt-19]

Runs `check FILE --invariant differential --json` on every corpus file
valid for the lowering (with the file's own pipeline), two at a time, and
prints the verdict counts and the undecided runs' share per construct
(`oracles.undecided`: the constructs the README lists; "NOT LISTED" for a
reason naming none), then each undecided file with its reason, then
each violation with the file's `// DIFFERENTIAL mlir-opt-N: violated ...`
line that explains it (at the end of the file, so that the header's POINTS
line numbers stay; "NOT EXPLAINED" where there is none).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpu_alloc_verify.oracles.undecided import construct_of  # noqa: E402


def judge(path: Path, spec: str) -> tuple[str, str, str]:
    text = path.read_text()
    valid = re.search(r"^// VALID: (.*)$", text, re.M)
    if valid and spec not in valid.group(1).split():
        return path.name, "invalid", ""
    argv = [sys.executable, "-m", "gpu_alloc_verify", "check", str(path), "--lowering", spec,
            "--invariant", "differential", "--json"]
    pipeline = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    if pipeline:
        argv += ["--pipeline", pipeline.group(1)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=ROOT)
    try:
        counts = json.loads(proc.stdout)["by_lowering"][spec]["differential"]
        unknown = json.loads(proc.stdout).get("unknown") or []
    except (ValueError, KeyError):
        return path.name, "error", proc.stderr.strip()[-200:]
    verdict = next((v for v, n in counts.items() if n), "none")
    if verdict == "not-applicable":  # its reason is in the verdict table, not the JSON
        table = subprocess.run([a for a in argv if a != "--json"], capture_output=True,
                               text=True, timeout=900, cwd=ROOT).stdout
        why = next((line for line in table.splitlines()
                    if line.strip().startswith("differential")), "")
        return path.name, verdict, why.split("not-applicable", 1)[-1].strip(": ")
    if verdict == "violated":
        why = re.search(rf"^// DIFFERENTIAL {re.escape(spec)}: violated(.*)$", text, re.M)
        detail = next((v["detail"] for v in json.loads(proc.stdout).get("violations", [])
                       if v.get("invariant") == "differential"), "")
        return path.name, verdict, (f"explained:{why.group(1)}" if why else
                                    f"NOT EXPLAINED: {detail[:160]}")
    return path.name, verdict, (unknown[0]["reason"] if unknown else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lowering", default="mlir-opt-19")
    args = ap.parse_args()
    files = sorted((ROOT / "tests" / "corpus").glob("*.mlir"))
    with ThreadPoolExecutor(2) as pool:
        rows = list(pool.map(lambda f: judge(f, args.lowering), files))
    counts = collections.Counter(v for _, v, _ in rows)
    runs = sum(n for v, n in counts.items() if v != "invalid")
    decided = counts["holds"] + counts["violated"]
    print(f"{args.lowering}: differential decided on {decided} of {runs} runs "
          f"({100 * decided / max(runs, 1):.0f}%): {dict(counts)}")
    undecided = [(n, v, w) for n, v, w in rows if v == "unknown"]
    by_construct = collections.Counter(
        (c.readme if (c := construct_of(w)) else "NOT LISTED") for _, _, w in undecided)
    for readme, n in by_construct.most_common():
        print(f"  unknown {n:3} ({100 * n / max(runs, 1):4.1f}% of runs): {readme}")
    for name, verdict, why in rows:
        if verdict not in ("holds", "violated", "invalid"):
            print(f"  {verdict:15} {name}: {why[:160]}")
    for name, verdict, why in rows:
        if verdict == "violated":
            print(f"  violated        {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
