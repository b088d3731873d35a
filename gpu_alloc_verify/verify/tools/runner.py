"""The one place an external program is started: `mlir-opt`, `mlir-translate`,
`mlir-cpu-runner` / `mlir-runner`, FileCheck and the C compiler.

`run_tool` starts one, feeds it `stdin` (or nothing: a tool never reads the
harness's own terminal), and waits at most `timeout_s`.  Its answer is a
`ToolResult` whatever the exit status; a tool that cannot be started raises
`ToolNotStarted` (an `EnvironmentProblem`: install or fix it), one that runs
past its time raises `ToolTimedOut`.  Both carry `argv` and `detail` (the
operating system's words), so each caller says what the failure means for
its stage (a verdict, a skipped printer, an error for the user).

Every tool runs in a session of its own, and a timeout or an interrupt kills
the whole group: a wrapper script that hangs in a child holds the output
pipes open, and killing only the wrapper would leave us waiting forever.

Lookup: `find_tool` (PATH, then `/usr/lib/llvm-N/bin` for a versioned name),
`find_mlir_opt`, `tool_version`.  The command lines themselves are spelled in
`commands`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, GpuAllocVerifyError

KNOWN_VERSIONS = (22, 21, 20, 19, 18, 17, 16)
VERSION_TIMEOUT_S = 30.0
_KILL_WAIT_S = 10.0  # after SIGKILL, how long to wait for the pipes to close


@dataclass(frozen=True)
class ToolResult:
    """A tool that ran to its end, whatever its exit status (negative: the
    signal that ended it)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class ToolError(GpuAllocVerifyError):
    """An external tool did not run to its end."""

    def __init__(self, argv: Sequence[str], detail: str, message: str) -> None:
        super().__init__(message)
        self.argv = tuple(argv)
        self.detail = detail  # the OS's or subprocess's own words


class ToolNotStarted(ToolError, EnvironmentProblem):
    """The OS could not start the tool (missing, not executable)."""

    def __init__(self, argv: Sequence[str], cause: OSError) -> None:
        super().__init__(argv, str(cause), f"cannot run {argv[0]}: {cause}")


class ToolTimedOut(ToolError):
    """The tool did not finish within its time; its process group was killed."""

    def __init__(self, argv: Sequence[str], timeout_s: float, detail: str) -> None:
        super().__init__(argv, detail, f"{argv[0]} did not finish in {timeout_s:g}s")
        self.timeout_s = timeout_s


def run_tool(argv: Sequence[str], *, timeout_s: float, stdin: str | None = None,
             env: Mapping[str, str] | None = None) -> ToolResult:
    """Run `argv` to its end (text in and out; undecodable bytes replaced)."""
    cmd = [str(a) for a in argv]
    try:
        popen = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
            env=None if env is None else dict(env), start_new_session=True,
        )
    except OSError as e:
        raise ToolNotStarted(cmd, e) from e
    try:
        out, err = popen.communicate(stdin, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        _kill_group(popen)
        raise ToolTimedOut(cmd, timeout_s, str(e)) from None
    except BaseException:  # KeyboardInterrupt: do not leave the tool running
        _kill_group(popen)
        raise
    return ToolResult(tuple(cmd), popen.returncode, out, err)


def _kill_group(popen: subprocess.Popen[str]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(popen.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        popen.kill()
    try:
        popen.communicate(timeout=_KILL_WAIT_S)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        pass


def find_tool(*names: str) -> str | None:
    """The first of `names` found on PATH, or (for `NAME-N`) as
    `/usr/lib/llvm-N/bin/NAME`; None when none is."""
    for name in names:
        found = shutil.which(name)
        if found:
            return found
        m = re.fullmatch(r"(.+)-(\d+)", name)
        if m:
            path = f"/usr/lib/llvm-{m.group(2)}/bin/{m.group(1)}"
            if os.access(path, os.X_OK):
                return path
    return None


def find_mlir_opt(version: int | None = None) -> str | None:
    """Path of `mlir-opt-N` (or the newest mlir-opt when version is None)."""
    versions = KNOWN_VERSIONS if version is None else (version,)
    for v in versions:
        for candidate in (shutil.which(f"mlir-opt-{v}"), f"/usr/lib/llvm-{v}/bin/mlir-opt"):
            if candidate and os.access(candidate, os.X_OK):
                return candidate
    if version is None:
        return shutil.which("mlir-opt")
    return None


def tool_version(path: str) -> int | None:
    """The LLVM version an MLIR tool says it is (None: it does not say)."""
    try:
        out = run_tool([path, "--version"], timeout_s=VERSION_TIMEOUT_S).stdout
    except ToolError:
        return None
    m = re.search(r"LLVM version (\d+)", out)
    return int(m.group(1)) if m else None
