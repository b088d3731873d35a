"""Verdicts on tests/corpus by kind, and every `unknown` with its reason
(issue 26's figure: at most 5% unknown, each naming an out-of-scope construct).

    .venv/bin/python scripts/corpus_unknowns.py [-j 2] [--json FILE] [NAME ...]

Runs `check FILE --json` once per corpus file on every installed
`mlir-opt-N` its `VALID:` header lists, with its `PIPELINE:`, as
`tests/cli/test_corpus.py` does.  Counts the invariants the corpus headers
judge (not `differential`, which is another figure:
`corpus_differential_share.py`), prints the counts, the unknown share
(of all verdicts, and of holds+violated+unknown), then the unknowns grouped
by reason (file-specific names folded so that one construct is one group).
Exit 1 on a traceback or a run that gave no JSON.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
VERSIONS = (16, 19, 22)
SKIP = frozenset({"differential"})


def _header(text: str, key: str) -> str:
    m = re.search(rf"^// {key}:(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


@dataclass
class Row:
    """One file's verdicts ("mlir-opt-N invariant" -> verdict), its unknowns
    (the `--json` entries) and what went wrong, if anything."""

    name: str
    verdicts: dict[str, str] = field(default_factory=dict)
    unknown: list[dict[str, str]] = field(default_factory=list)
    error: str = ""


def judge(path: Path) -> Row:
    """Check one file on every installed version it is valid for."""
    text = path.read_text(encoding="utf-8")
    valid = _header(text, "VALID").split()
    specs = [f"mlir-opt-{v}" for v in VERSIONS if f"mlir-opt-{v}" in valid
             and Path(f"/usr/lib/llvm-{v}/bin/mlir-opt").exists()]
    out = Row(path.name)
    if not specs:
        return out
    argv = [sys.executable, "-m", "gpu_alloc_verify", "check", str(path.relative_to(ROOT)),
            "--json"]
    for s in specs:
        argv += ["--lowering", s]
    if pipeline := _header(text, "PIPELINE"):
        argv += ["--pipeline", pipeline]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=ROOT)
    if "Traceback" in proc.stderr:
        out.error = "traceback: " + proc.stderr.strip()[-400:]
        return out
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        out.error = f"exit {proc.returncode}, no JSON: {proc.stderr.strip()[-300:]}"
        return out
    verdicts: dict[str, str] = {}
    for spec, per in data["by_lowering"].items():
        for inv, counts in per.items():
            if inv in SKIP:
                continue
            got = [v for v, n in counts.items() if n]
            verdicts[f"{spec} {inv}"] = got[0] if len(got) == 1 else "+".join(got) or "none"
    out.verdicts = verdicts
    out.unknown = [u for u in data.get("unknown") or [] if u.get("invariant") not in SKIP]
    return out


def fold_reason(reason: str) -> str:
    """One group per construct: file names, positions, op numbers, symbols
    and counts folded away."""
    r = re.sub(r"[\w./-]+\.mlir:\d+:\d+(#\d+)?", "<loc>", reason)
    r = re.sub(r"@[\w.$-]+", "@F", r)
    r = re.sub(r"\bop\d+\b", "opN", r)
    r = re.sub(r"\b\d+\b", "N", r)
    return r[:220]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--json", help="write every row here")
    ap.add_argument("names", nargs="*", help="only these corpus files (stem or name)")
    args = ap.parse_args()
    files = sorted(CORPUS.glob("*.mlir"))
    if args.names:
        want = {n.removesuffix(".mlir") for n in args.names}
        files = [f for f in files if f.stem in want]
    with ThreadPoolExecutor(args.j) as pool:
        rows = list(pool.map(judge, files))
    kinds: collections.Counter[str] = collections.Counter()
    for row in rows:
        kinds.update(row.verdicts.values())
    total = sum(kinds.values())
    decided = kinds["holds"] + kinds["violated"] + kinds["unknown"]
    print(f"{len(rows)} files, {total} verdicts: {dict(sorted(kinds.items()))}")
    print(f"unknown: {kinds['unknown']}/{total} = {100 * kinds['unknown'] / max(total, 1):.1f}% "
          f"of all verdicts; {kinds['unknown']}/{decided} = "
          f"{100 * kinds['unknown'] / max(decided, 1):.1f}% of holds+violated+unknown")
    errors = [r for r in rows if r.error]
    for r in errors:
        print(f"ERROR {r.name}: {r.error}")
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for r in rows:
        for u in r.unknown:
            groups[fold_reason(str(u.get("reason")))].append(
                f"{r.name} {u.get('lowering')} {u.get('invariant')}: {u.get('reason')}")
    for reason, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"\n[{len(items)}] {reason}")
        for item in items:
            print(f"    {item[:400]}")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1),
                                   encoding="utf-8")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
