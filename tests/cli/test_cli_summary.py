"""The terminal summary of `fuzz` fits one screen (issue 29): the README's
first command, with fewer examples and a fixed seed, prints at most 40
lines of at most 80 columns, the verdict table first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("gpu-alloc-verify"))


@pytest.mark.slow
def test_readme_first_command_prints_one_screen(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env["COLUMNS"] = "80"
    proc = subprocess.run([EXE, "fuzz", "--lowering", "xdsl:pr69969", "--max-examples", "60",
                           "--seed", "1", "-j", "1", "--report", str(tmp_path / "report")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1, proc.stderr[-2000:]
    text = proc.stdout
    lines = text.splitlines()
    assert len(lines) <= 40, proc.stdout
    # Commands and paths are never cut (a cut one would not run).
    assert all(len(ln) <= 80 for ln in lines
               if "gpu-alloc-verify " not in ln and not ln.startswith("report: ")), text
    assert lines[0].startswith(tuple("0123456789")) and "judged" in lines[0] and "drawn" in lines[0]
    assert text.index("lowering-complete") < text.index("ROOT CAUSES") < text.index("UNKNOWN")
    # One way of counting (issue 44): no glossary, nothing cut with an ellipsis.
    assert "Terms:" not in text and "\u2026" not in text
    assert "violated" in lines[-2] and lines[-1].startswith("report: ")
    assert "report: written in" in proc.stderr  # the report's progress, on stderr
