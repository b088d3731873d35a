"""The test lanes: the slow list names real tests, and the development lane
(`-m "not slow"`) leaves out every nightly campaign and every listed test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import slow_tests

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_entry_is_a_test_function() -> None:
    entries = slow_tests()
    assert entries, "the slow list is empty: regenerate it with scripts/slow_lane.py"
    stale = []
    for entry in sorted(entries):
        path, _, function = entry.partition("::")
        source = ROOT / path
        if not source.is_file() or not re.search(
                rf"^def {re.escape(function)}\(", source.read_text(), re.MULTILINE):
            stale.append(entry)
    assert not stale, f"not a test function any more (rerun scripts/slow_lane.py): {stale}"


def _collected(marks: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marks, "-p",
         "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr  # 5: nothing collected
    return {ln.split("[", 1)[0] for ln in proc.stdout.splitlines() if "::" in ln}


@pytest.mark.slow
def test_the_development_lane_leaves_out_nightly_and_listed_tests() -> None:
    fast = _collected("not slow")
    nightly = _collected("nightly")
    assert nightly, "no nightly campaign collected"
    assert not fast & nightly
    listed = {e for e in slow_tests()}
    assert not {f for f in fast if f in listed}, "a listed slow test runs in the fast lane"
    # and most test functions stay in it: the lane is not an empty shell
    assert len(fast) > 4 * len(listed)
