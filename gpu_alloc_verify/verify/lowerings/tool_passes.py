"""Which passes (and registered pass pipelines) an `mlir-opt` binary has.

Asked of the binary itself: `mlir-opt --help` lists each one as a `--NAME`
line, indented six spaces, under "Passes:" and "Pass Pipelines:" (LLVM
16-22); their options are indented further, the values of an enum option
four.  Cached per binary path: one ~40 ms run per process.  None when the
binary does not answer that way (a wrapper that hangs or prints something
else): then nothing is decided here and mlir-opt's own diagnostics decide.
"""

from __future__ import annotations

import functools
import re

from gpu_alloc_verify.verify.tools.commands import help_argv
from gpu_alloc_verify.verify.tools.runner import KNOWN_VERSIONS, ToolError, find_mlir_opt, run_tool

_HELP_TIMEOUT_S = 30.0
_SECTION = re.compile(r"^ {4}(Passes|Pass Pipelines):\s*$")
_CATEGORY = re.compile(r"^ {0,3}\S")  # enum values of pass options sit at four
_ENTRY = re.compile(r"^ {6}--([A-Za-z0-9][-A-Za-z0-9_.]*)")


@functools.cache
def tool_passes(path: str, timeout_s: float = _HELP_TIMEOUT_S) -> frozenset[str] | None:
    """The pass and pass-pipeline names `path --help` lists, or None."""
    try:
        proc = run_tool(help_argv(path), timeout_s=timeout_s)
    except ToolError:  # not started or hung: the tool's own diagnostics decide
        return None
    if proc.returncode != 0:
        return None
    return _help_passes(proc.stdout)


def _help_passes(text: str) -> frozenset[str] | None:
    names: set[str] = set()
    inside = seen = False
    for line in text.splitlines():
        if _SECTION.match(line):
            inside = seen = True
        elif inside and _CATEGORY.match(line):
            inside = False  # the next option category
        elif inside and (m := _ENTRY.match(line)):
            names.add(m.group(1))
    return frozenset(names) if seen and names else None


def installed_passes() -> frozenset[str]:
    """Every pass some installed mlir-opt-N has: a pass none has is a typo,
    not a version difference."""
    known: set[str] = set()
    for v in KNOWN_VERSIONS:
        path = find_mlir_opt(v)
        if path is not None:
            known |= tool_passes(path) or set()
    return frozenset(known)
