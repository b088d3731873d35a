"""Source text as the harness reads it: printed in generic form, with every
location, by the `mlir-opt` under test (`normalize`), and parsed by
`verify.ir.parse.parse` with the gpu dialect unregistered (`parse_text`)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from gpu_alloc_verify.verify.ir.locations import quote_string
from gpu_alloc_verify.verify.ir.parse import NotParsed, ParsedModule, parse
from gpu_alloc_verify.verify.ir.strings import utf8_unescaped
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.harness_defects import (
    message_in_words,
    without_exception_name,
)
from gpu_alloc_verify.verify.tools.blame import tool_failure
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from gpu_alloc_verify.verify.tools.runner import ToolTimedOut, run_tool

_READ_TIMEOUT_S = 120.0
_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): error: (.*)$")


@lru_cache(maxsize=32)
def normalize(text: str, name: str, tool: str) -> str:
    """`text` in generic form with every location, as `tool` prints it, or
    SourceParseError with the tool's first diagnostic at `name:line:col`
    (ToolFailed when the tool crashed or reads nothing, `verify.tools.blame`)."""
    try:  # a tool that cannot start raises ToolNotStarted ("cannot run TOOL: ...")
        proc = run_tool(mlir_opt_argv(tool, generic=True, locations=True, unregistered=True,
                                      stdin=True), stdin=text, timeout_s=_READ_TIMEOUT_S)
    except ToolTimedOut as e:
        raise SourceParseError(f"{name}: {Path(tool).name} did not finish reading the file "
                               f"in {_READ_TIMEOUT_S:g} s") from e
    if proc.returncode != 0:
        # A tool that crashed, or fails on an empty module too, is to blame,
        # not the file (ToolFailed: an environment problem, exit status 2).
        blamed = tool_failure(proc, name, None if name.startswith("<") else name)
        if blamed is not None:
            raise blamed
        lines = proc.stderr.splitlines()
        for ln in lines:
            m = _DIAG.match(ln)
            if m:
                raise SourceParseError(
                    f"{name}:{m.group(1)}:{m.group(2)}: not valid MLIR for "
                    f"{Path(tool).name}: {m.group(3)}")
        first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
        raise SourceParseError(f"{name}: not valid MLIR for {Path(tool).name}: "
                               f"{first.replace('<stdin>', name)}")
    # Locations of the input name the file as the user did.
    return utf8_unescaped(proc.stdout).replace('loc("<stdin>":', f'loc({quote_string(name)}:')


def parse_text(text: str, name: str) -> ParsedModule:
    """The parsed generic module (the fast reader's objects, else xDSL's), or
    SourceParseError naming `name:line:col` where xDSL points."""
    try:
        return parse(text, side="source", name=name)
    except NotParsed as e:
        at = f"{name}:{e.at[0]}:{e.at[1]}" if e.at else name
        if isinstance(e.error, RecursionError):  # valid, but nested past the reader's depth
            raise SourceParseError(f"{at}: xDSL's reader does not follow nesting this deep; "
                                   "check a less deeply nested version") from e.error
        said = without_exception_name(e.lines[-1]) if e.lines else message_in_words(e.error)
        raise SourceParseError(f"{at}: not valid MLIR for xDSL's reader: {said}; give it in "
                               "generic form, or install an mlir-opt to read it") from e.error
