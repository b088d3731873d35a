"""Every README code block that is a command or Python runs (issue 44, item 5).

The README opens with two commands.  The second is the test command: it is
not run from here (this suite runs inside it); it must be exactly what
`.ci/run` runs, and the CI workflow must run `.ci/run`.  The first is run as
written but with 20 examples instead of 200 and the report in a temporary
folder (its `scripts/setup.sh &&` prefix is idempotent: a few seconds with
the venv in place).  Every other `sh` block runs in an empty folder with the
venv's commands on PATH, and every `python` block in a fresh interpreter; each
must exit 0.  A block in another language (`toml`, plain text) is data, not a
command, and is not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SHELL = ("sh", "bash", "shell")
PYTHON = ("python", "py")
FIRST_RUN_EXAMPLES = "20"


def readme_blocks() -> list[tuple[str, str]]:
    """(language, text) of every fenced block of the README, in order."""
    text = README.read_text(encoding="utf-8")
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)


def first_commands() -> list[str]:
    lang, text = readme_blocks()[0]
    assert lang in SHELL
    return text.splitlines()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_readme_fits_and_opens_with_its_two_commands() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250
    first, second = first_commands()
    assert first.startswith("scripts/setup.sh && .venv/bin/gpu-alloc-verify fuzz ")
    assert second.startswith("scripts/setup.sh && .venv/bin/python -m pytest ")
    # Every block is a command, Python, or data in a named language.
    assert all(lang for lang, _ in readme_blocks())


def test_the_second_command_is_what_ci_runs() -> None:
    _, second = first_commands()
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_run[-1] == second
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+run: \.ci/run$", workflow, re.M)
    assert re.search(r"^on:\n(\s+.*\n)*?\s+push:", workflow, re.M)
    assert re.search(r"^on:\n(\s+.*\n)*?\s+pull_request:", workflow, re.M)


def _first_command_shortened(report: Path) -> str:
    first = first_commands()[0]
    words = shlex.split(first)
    assert words[words.index("--max-examples") + 1] == "200"
    assert words[words.index("--report") + 1] == "out/report"
    return (first.replace("--max-examples 200", f"--max-examples {FIRST_RUN_EXAMPLES}")
            .replace("--report out/report", f"--report {shlex.quote(str(report))}"))


@pytest.mark.slow
def test_the_first_command_runs(tmp_path: Path) -> None:
    report = tmp_path / "report"
    env = _env()
    env["CI"] = "true"  # seed 0: the same programs every run
    proc = subprocess.run(["bash", "-c", _first_command_shortened(report)], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)
    # Exit 1, as the README says: the default lowering leaves ops unconverted.
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (report / "index.html").is_file() and (report / "results.jsonl").is_file()
    assert list((report / "lit").glob("*.mlir"))
    # "a one-screen summary (at most 40 lines)", as the README promises
    assert len(proc.stdout.splitlines()) <= 40, proc.stdout


def _other_blocks(langs: tuple[str, ...]) -> list[str]:
    return [text for lang, text in readme_blocks()[1:] if lang in langs]


@pytest.mark.slow
def test_every_other_shell_block_runs(tmp_path: Path) -> None:
    blocks = _other_blocks(SHELL)
    assert blocks, "the README shows no command beyond the first two"
    for i, block in enumerate(blocks):
        cwd = tmp_path / f"sh{i}"
        cwd.mkdir()
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd,
                              capture_output=True, text=True, env=_env(), timeout=300)
        assert proc.returncode == 0, (block, proc.stdout[-2000:], proc.stderr[-2000:])


@pytest.mark.slow
def test_every_python_block_runs(tmp_path: Path) -> None:
    blocks = _other_blocks(PYTHON)
    assert blocks, "the README shows no Python"
    for block in blocks:
        proc = subprocess.run([sys.executable, "-c", block], cwd=tmp_path,
                              capture_output=True, text=True, env=_env(), timeout=300)
        assert proc.returncode == 0, (block, proc.stderr[-2000:])
