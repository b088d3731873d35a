"""A tool that crashes, or fails on every input, is blamed, not the user's
file (issue 44, item 9): exit status 2 (an environment problem), the
signal and the command named."""

from __future__ import annotations

import stat
from pathlib import Path

from gpu_alloc_verify.verify.tools.blame import ToolFailed, how_it_ended, tool_failure
from gpu_alloc_verify.verify.tools.runner import ToolResult
from tests.conftest import need_mlir_opt
from tests.reliability.conftest import ROOT, cli

FILE = ROOT / "tests" / "corpus" / "vector_add_async.mlir"


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def test_how_a_tool_ended_is_said_in_words() -> None:
    assert how_it_ended(-11) == "killed by signal 11 (SIGSEGV)"
    assert how_it_ended(-6) == "killed by signal 6 (SIGABRT)"
    assert how_it_ended(70) == "exit status 70"


def test_check_blames_a_tool_that_segfaults_on_every_input(tmp_path: Path) -> None:
    tool = _script(tmp_path / "mybuild", "kill -SEGV $$\n")
    proc = cli("check", str(FILE), "--lowering", f"mlir-opt:{tool}")
    assert proc.returncode == 2, proc.stderr  # usage, input or environment (cli/__init__)
    err = proc.stderr
    assert "mybuild failed, not its input" in err
    assert "killed by signal 11 (SIGSEGV)" in err and "on an empty module" in err
    assert f"the command was: {tool} " in err  # the command, as it ran
    assert "not valid MLIR" not in err


def test_check_blames_a_tool_that_exits_1_on_every_input(tmp_path: Path) -> None:
    tool = _script(tmp_path / "nolicense", "echo 'error: no licence' >&2\nexit 1\n")
    proc = cli("check", str(FILE), "--lowering", f"mlir-opt:{tool}")
    assert proc.returncode == 2, proc.stderr
    assert "nolicense failed, not its input: it ended with exit status 1" in proc.stderr
    assert "no licence" in proc.stderr and "not valid MLIR" not in proc.stderr


def test_check_blames_a_tool_that_crashes_on_this_file_only(tmp_path: Path) -> None:
    real = need_mlir_opt(19)
    # Reads an empty module (and the pipeline's check) as the real one does;
    # dies on anything holding gpu.wait, as the file does.
    tool = _script(tmp_path / "crashy", 'data=$(cat)\ncase "$data" in *gpu.wait*) '
                   f'kill -SEGV $$;; esac\nprintf "%s\\n" "$data" | exec "{real}" "$@"\n')
    proc = cli("check", str(FILE), "--lowering", f"mlir-opt:{tool}")
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr
    assert f"crashy crashed (killed by signal 11 (SIGSEGV)) reading {FILE}" in err
    assert "not an error in the input" in err and f"< {FILE}" in err


def test_a_file_the_tool_cannot_read_is_still_the_files_fault() -> None:
    real = need_mlir_opt(19)
    bad = ToolResult((real, "-"), 1, "", "<stdin>:1:10: error: expected ')'\n")
    assert tool_failure(bad, "bad.mlir", "bad.mlir") is None  # it reads an empty module


def test_only_a_tool_failing_everywhere_is_blamed_when_crashes_are_verdicts(
        tmp_path: Path) -> None:
    real = need_mlir_opt(19)
    crash = ToolResult((real, "-"), -11, "", "")
    assert tool_failure(crash, "its input", crash_blames_tool=False) is None
    broken = _script(tmp_path / "broken", "kill -SEGV $$\n")
    blamed = tool_failure(ToolResult((broken, "-"), -11, "", ""), "x.mlir",
                          crash_blames_tool=False)
    assert isinstance(blamed, ToolFailed) and blamed.detail == "killed by signal 11 (SIGSEGV)"
