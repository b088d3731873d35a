"""Source text as the harness reads it: printed in generic form, with every
location, by the `mlir-opt` under test (`normalize`), and parsed by the fast
reader or xDSL with the gpu dialect unregistered (`parse_source`)."""

from __future__ import annotations

import re
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from xdsl.parser import Parser

from gpu_alloc_verify.verify.ir.xdsl_context import gpu_unregistered
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, SourceParseError

_PRINT = ("--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope",
          "--allow-unregistered-dialect")
_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): error: (.*)$")


@lru_cache(maxsize=32)
def normalize(text: str, name: str, tool: str) -> str:
    """`text` in generic form with every location, as `tool` prints it, or
    SourceParseError with the tool's first diagnostic at `name:line:col`."""
    try:
        proc = subprocess.run([tool, *_PRINT, "-"], input=text, capture_output=True,
                              text=True, errors="replace", timeout=120)
    except OSError as e:
        raise EnvironmentProblem(f"cannot run {tool}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise SourceParseError(f"{name}: {Path(tool).name} did not finish reading the file "
                               "in 120 s") from e
    if proc.returncode != 0:
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
    return proc.stdout.replace('loc("<stdin>":', f'loc({_quote(name)}:')


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


_XDSL_POS = re.compile(r"^\S*:(\d+):(\d+)$")


def parse_source(text: str, name: str) -> Any:
    """The parsed generic module: the fast reader's objects, else xDSL's."""
    from gpu_alloc_verify.verify.ir.fastparse import Unsupported, parse_module
    from gpu_alloc_verify.verify.ir.lowered_ir import opaque_pointers

    try:
        return parse_module(text)
    except Unsupported:
        pass
    try:
        return Parser(gpu_unregistered(), opaque_pointers(text), name).parse_module()
    except Exception as e:  # xDSL raises several error types
        msg = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
        pos = _XDSL_POS.match(msg[0]) if msg else None
        at = f"{name}:{pos.group(1)}:{pos.group(2)}" if pos and len(msg) > 1 else name
        raise SourceParseError(f"{at}: not valid MLIR for xDSL's reader: "
                               f"{msg[-1] if msg else type(e).__name__}; give it in generic "
                               "form, or install an mlir-opt to read it") from e
