"""Mark the tests the development lane leaves out, at the test itself.

    .venv/bin/python -m pytest -q -m "not nightly" --junitxml=/tmp/durations.xml
    .venv/bin/python scripts/slow_lane.py /tmp/durations.xml [--over 1.0]

A test function gets `@pytest.mark.slow` when one of its cases took `--over`
seconds or more in that run (all its parametrizations go together, so a new
parameter does not slip into the fast lane unmeasured).  The mark is written
into the test file above the function's decorators, so a reader of a test
sees its lane (issue 39); CI and the nightly job run every lane, and
`pytest -m "not slow"` skips the marked ones.  Marks are only added: a test
that became fast keeps its mark until someone removes it by hand.
"""

from __future__ import annotations

import argparse
import ast
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "@pytest.mark.slow"


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


def _is_slow_mark(node: ast.expr) -> bool:
    return ast.unparse(node) in ("pytest.mark.slow", "pytest.mark.nightly")


def mark_slow(path: Path, function: str) -> bool:
    """Write `@pytest.mark.slow` above the module-level test `function` of
    `path`; False when it is not there or already in a slow lane."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            if any(_is_slow_mark(d) for d in node.decorator_list):
                return False
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = text.splitlines(keepends=True)
            lines.insert(first - 1, MARK + "\n")
            has_pytest = any(isinstance(n, ast.Import) and any(a.name == "pytest"
                                                                for a in n.names)
                             for n in tree.body)
            if not has_pytest:
                lines = _with_pytest_import(lines, tree)
            path.write_text("".join(lines), encoding="utf-8")
            return True
    return False


def _with_pytest_import(lines: list[str], tree: ast.Module) -> list[str]:
    """`import pytest` after the module's last top-level `import`/`from` line."""
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    at = (imports[-1].end_lineno or imports[-1].lineno) if imports else 0
    return [*lines[:at], "import pytest\n", *lines[at:]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("junit", type=Path, help="JUnit XML of a CI-lane run")
    ap.add_argument("--over", type=float, default=1.0, metavar="SEC",
                    help="a case this slow marks its function slow (default 1.0)")
    args = ap.parse_args(argv)
    marked = []
    for entry in sorted(slow_functions(args.junit, args.over)):
        path, _, function = entry.partition("::")
        if (ROOT / path).is_file() and mark_slow(ROOT / path, function):
            marked.append(entry)
    for entry in marked:
        print(f"marked slow: {entry}", file=sys.stderr)
    print(f"{len(marked)} test function(s) newly marked slow (over {args.over:g} s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
