"""Write `tests/slow_tests.txt`, the tests the development lane leaves out.

    .venv/bin/python -m pytest -q -m "not nightly" --junitxml=/tmp/durations.xml
    .venv/bin/python scripts/slow_lane.py /tmp/durations.xml [--over 1.0]

A test function goes on the list when one of its cases took `--over`
seconds or more in that run (all its parametrizations go together, so a
new parameter does not slip into the fast lane unmeasured).  CI and the
nightly job run them; `pytest -m "not slow"` skips them
(`tests/conftest.py` marks them at collection).
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tests" / "slow_tests.txt"
HEADER = """\
# Tests the development lane (`pytest -m "not slow"`) leaves out: one test
# function (all its cases) per line, as `path::function`, each with the
# seconds its slowest case took. Written by scripts/slow_lane.py from a
# JUnit run of the CI lane; CI (`-m "not nightly"`) runs them all.
"""


def slow_functions(junit: Path, over: float) -> dict[str, float]:
    """`path::function` -> seconds of its slowest case, for those over `over`."""
    out: dict[str, float] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        seconds = float(case.get("time") or 0.0)
        if seconds < over:
            continue
        module = (case.get("classname") or "").replace(".", "/") + ".py"
        key = f"{module}::{(case.get('name') or '').split('[')[0]}"
        out[key] = max(out.get(key, 0.0), seconds)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("junit", type=Path, help="JUnit XML of a CI-lane run")
    ap.add_argument("--over", type=float, default=1.0, metavar="SEC",
                    help="a case this slow puts its function on the list (default 1.0)")
    args = ap.parse_args(argv)
    found = slow_functions(args.junit, args.over)
    lines = [f"{k}  # {v:.1f} s" for k, v in sorted(found.items())]
    LIST.write_text(HEADER + "\n".join(lines) + "\n")
    print(f"{len(lines)} test functions over {args.over:g} s -> {LIST.relative_to(ROOT)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
