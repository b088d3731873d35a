"""The one tool runner (`verify.tools.runner`) and the one pool owner
(`verify.tools.pool`): results, typed failures, killed process groups."""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.tools import pool
from gpu_alloc_verify.verify.tools.runner import (
    ToolNotStarted,
    ToolTimedOut,
    find_tool,
    run_tool,
)


def test_a_result_whatever_the_exit_status() -> None:
    res = run_tool([sys.executable, "-c", "import sys; print(sys.stdin.read().upper()); "
                    "sys.exit(3)"], stdin="abc", timeout_s=60)
    assert (res.returncode, res.stdout.strip(), res.ok) == (3, "ABC", False)


def test_no_stdin_given_is_an_empty_stdin() -> None:
    """A tool never reads the harness's own terminal."""
    res = run_tool([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"],
                   timeout_s=60)
    assert res.ok and res.stdout.strip() == "''"


def test_a_missing_tool_is_an_environment_problem() -> None:
    with pytest.raises(ToolNotStarted) as info:
        run_tool(["/no/such/mlir-opt", "--version"], timeout_s=5)
    assert isinstance(info.value, EnvironmentProblem)
    assert str(info.value).startswith("cannot run /no/such/mlir-opt: ")
    assert "No such file" in info.value.detail


@pytest.mark.slow
def test_a_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    """A wrapper whose child holds the pipes open does not keep us waiting."""
    pid_file = tmp_path / "child.pid"
    script = (f"import subprocess, time; c = subprocess.Popen(['sleep', '600']); "
              f"open({str(pid_file)!r}, 'w').write(str(c.pid)); time.sleep(600)")
    start = time.monotonic()
    with pytest.raises(ToolTimedOut) as info:
        run_tool([sys.executable, "-c", script], timeout_s=2)
    assert time.monotonic() - start < 30
    assert info.value.timeout_s == 2 and "timed out after 2 seconds" in info.value.detail
    status = Path(f"/proc/{int(pid_file.read_text())}/status")
    for _ in range(50):  # the group got SIGKILL: gone, or a zombie nobody reaped yet
        try:
            if "State:\tZ" in status.read_text():
                break
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the tool's child outlived the timeout")


def test_find_tool_looks_on_path() -> None:
    assert find_tool("no-such-tool-xyz", "sh") is not None
    assert find_tool("no-such-tool-xyz") is None


def _square(x: int) -> int:
    return x * x


def test_workers_map_in_order_and_report_each_answer() -> None:
    assert pool.map_on_workers(_square, [1, 2, 3, 4], jobs=2) == [1, 4, 9, 16]
    pool.shutdown()
    seen: dict[int, int] = {}
    pool.each_on_workers([partial(_square, x) for x in range(5)], 2, seen.__setitem__)
    assert seen == {k: k * k for k in range(5)}
