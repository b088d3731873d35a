"""The test lanes are marks written at each test (issue 39): no side list
decides a test's lane, the development lane (`-m "not slow"`) leaves out
every slow and nightly test, and scripts/slow_lane.py writes the mark where
a reader of the test sees it."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# scripts/ is not a package: the marker writer is loaded from its file.
_SPEC = importlib.util.spec_from_file_location("slow_lane", ROOT / "scripts" / "slow_lane.py")
assert _SPEC is not None and _SPEC.loader is not None
slow_lane = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slow_lane)
mark_slow = slow_lane.mark_slow


def _marked(mark: str) -> set[str]:
    """`path::function` of each module-level test function carrying `mark`
    (on itself or through a module-level `pytestmark`)."""
    found: set[str] = set()
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_marked = any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark"
                                              for t in n.targets)
            and f"mark.{mark}" in ast.unparse(n.value) for n in tree.body)
        rel = path.relative_to(ROOT).as_posix()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                if module_marked or any(ast.unparse(d).startswith(f"pytest.mark.{mark}")
                                        for d in node.decorator_list):
                    found.add(f"{rel}::{node.name}")
    return found


def _collected(marks: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marks, "-p",
         "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr  # 5: nothing collected
    return {ln.split("[", 1)[0] for ln in proc.stdout.splitlines() if "::" in ln}


def test_no_side_list_decides_a_lane() -> None:
    assert not (TESTS / "slow_tests.txt").exists()
    conftest = (TESTS / "conftest.py").read_text(encoding="utf-8")
    assert "slow_tests" not in conftest and ".txt" not in conftest


@pytest.mark.nightly  # collects the whole suite twice (13 s): CI's time goes to the product
def test_the_development_lane_leaves_out_every_marked_test() -> None:
    fast = _collected("not slow")
    nightly = _collected("nightly")
    slow = _marked("slow")
    assert nightly, "no nightly campaign collected"
    assert slow, "no test is marked slow"
    assert not fast & nightly
    assert not fast & slow, "a test marked slow runs in the fast lane"
    # and most test functions stay in it: the lane is not an empty shell
    assert len(fast) > 4 * len(slow)


def test_the_marker_writer_puts_the_mark_at_the_test(tmp_path: Path) -> None:
    test = tmp_path / "test_x.py"
    test.write_text('"""A test module."""\n\nfrom pathlib import Path\n\n\n'
                    "@some.decorator\ndef test_a() -> None:\n    assert Path()\n")
    assert mark_slow(test, "test_a")
    text = test.read_text()
    assert "import pytest\n" in text
    assert "@pytest.mark.slow\n@some.decorator\ndef test_a()" in text
    assert not mark_slow(test, "test_a"), "marked twice"
    assert not mark_slow(test, "test_missing")
