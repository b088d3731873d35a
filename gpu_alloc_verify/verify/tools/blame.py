"""Who failed: the tool, or the input it was given.

`mlir-opt` exits 1 on a file it cannot read, so a failing run is first read
as the input's fault.  Two things say the tool itself failed instead:

- it died by a signal (or exited above 1, as LLVM's crash handler and fatal
  errors do): a crash is a defect of the tool whatever the input was;
- it fails on an empty module as well, when only asked to parse and print
  it: every build of the tool reads that, so it fails on every input.

`tool_failure` answers with a `ToolFailed` (an `EnvironmentProblem`: exit
status 2, "fix or replace the tool") that names how the tool ended and the
command that ran, or None when the input is still the likely cause.  The
extra run on an empty module happens only on a failure, never on the
common path.
"""

from __future__ import annotations

import shlex
import signal
from pathlib import Path

from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from gpu_alloc_verify.verify.tools.runner import (
    ToolError,
    ToolNotStarted,
    ToolResult,
    ToolTimedOut,
    run_tool,
)

EMPTY_MODULE = "module {}\n"
_PROBE_TIMEOUT_S = 30.0
_SAID_MAX = 200  # characters of the tool's own first line quoted


class ToolFailed(ToolError, EnvironmentProblem):
    """The tool crashed, or fails on every input: its failure, not the input's."""

    def __init__(self, result: ToolResult, message: str) -> None:
        super().__init__(result.argv, how_it_ended(result.returncode), message)
        self.result = result


def how_it_ended(returncode: int) -> str:
    """`killed by signal 11 (SIGSEGV)` or `exit status N`."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-returncode} ({name})"
    return f"exit status {returncode}"


def crashed(returncode: int) -> bool:
    """A signal or an exit status above 1: mlir-opt's own error exit is 1."""
    return returncode < 0 or returncode > 1


def fails_on_empty_module(tool: str) -> ToolResult | None:
    """The failing run of `tool` only parsing and printing an empty module,
    or None when it reads it (or did not finish: nothing learnt)."""
    try:
        proc = run_tool(mlir_opt_argv(tool, generic=True, stdin=True), stdin=EMPTY_MODULE,
                        timeout_s=_PROBE_TIMEOUT_S)
    except (ToolTimedOut, ToolNotStarted):
        return None
    return None if proc.ok else proc


def tool_failure(proc: ToolResult, what: str, stdin_from: str | None = None,
                 crash_blames_tool: bool = True) -> ToolFailed | None:
    """The tool's own failure behind the failing run `proc` on `what` (a
    file's name, "the programs given"...), or None when `what` may be at
    fault.  `stdin_from`: what the command read on its standard input, to
    show it.  `crash_blames_tool=False`: only a tool that fails on every
    input is blamed (a pipeline's crash on one input is a verdict)."""
    tool = proc.argv[0]
    name = Path(tool).name
    probe = fails_on_empty_module(tool)
    command = shlex.join(proc.argv) + (f" < {shlex.quote(stdin_from)}" if stdin_from else "")
    ended = how_it_ended(proc.returncode)
    if probe is not None:
        same = ("the same way" if probe.returncode == proc.returncode
                else how_it_ended(probe.returncode))
        return ToolFailed(proc, (
            f"{name} failed, not {what}: it was {ended}" if proc.returncode < 0 else
            f"{name} failed, not {what}: it ended with {ended}")
            + f"{_said(proc)}, and fails {same} on an empty module when only asked to "
            f"parse it (`echo 'module {{}}' | {shlex.join(probe.argv)}`), so on every "
            f"input: fix or replace this build of the tool; the command was: {command}")
    if crash_blames_tool and crashed(proc.returncode):
        return ToolFailed(proc, (
            f"{name} crashed ({ended}) reading {what}{_said(proc)}: a defect of the tool, "
            f"not an error in the input (the tool reads an empty module); report it to "
            f"the tool's maintainers with the input; the command was: {command}"))
    return None


def _said(proc: ToolResult) -> str:
    """`; it said: FIRST LINE` of the tool's stderr, or nothing."""
    first = next((ln.strip() for ln in proc.stderr.splitlines() if ln.strip()), "")
    if not first:
        return ""
    if len(first) > _SAID_MAX:
        first = first[:_SAID_MAX].rsplit(" ", 1)[0] + " ..."
    return f" (it said: {first})"
