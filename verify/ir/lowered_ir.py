"""Parsing lowered modules: xDSL (generic form, unknown ops allowed), or the
fast reader of `verify.ir.fastparse`, which falls back to xDSL on anything
outside the subset it reads."""

from __future__ import annotations

import os
import re
from typing import Any

from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from gpu_alloc_verify.verify.ir.xdsl_context import all_dialects
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError

# `!llvm.ptr<...>` and, inside other LLVM types, the short `ptr<...>`.
_PTR_RE = re.compile(r"(?<![\w])(?:!llvm\.)?ptr<")


# `read_lowered`'s parser: "fast" (default) or "xdsl"; the environment
# variable GPU_ALLOC_VERIFY_PARSER overrides it.
PARSERS = ("fast", "xdsl")
DEFAULT_PARSER = os.environ.get("GPU_ALLOC_VERIFY_PARSER", "fast")


class LoweredParseError(GpuAllocVerifyError):
    """The lowering's output is not MLIR xDSL can read (a verdict input)."""


def op_name(op: Any) -> str:
    """The op's MLIR name: xDSL's registered ops, the generic ones it keeps
    for ops it does not know (`builtin.unregistered`, the name in
    `op_name__`) and `verify.ir.fastparse`'s ops alike."""
    name = op.name
    if name == "builtin.unregistered":
        attr = op.attributes.get("op_name__")
        if attr is not None:
            return str(attr.data)
    return str(name)


def opaque_pointers(text: str) -> str:
    """`!llvm.ptr<i8>` (LLVM 16's typed pointers) to `!llvm.ptr`: xDSL reads
    only opaque pointers, and the pointee type does not matter to the checks."""
    if "ptr<" not in text:
        return text
    out: list[str] = []
    pos = 0
    while (m := _PTR_RE.search(text, pos)) is not None:
        start = m.start()
        marker = m.group(0)
        out.append(text[pos:start] + marker[:-1])
        depth, i = 0, start + len(marker) - 1
        while i < len(text):
            if text[i] == "<":
                depth += 1
            elif text[i] == ">":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        inner = text[start + len(marker): i]
        if inner.strip().isdigit():  # an address space is kept
            out[-1] += f"<{inner}>"
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


_KERNEL_MODULE = re.compile(r'^(\s*)"gpu\.module"\(.*\(\{$')


def without_kernel_bodies(text: str) -> str:
    """The text with the bodies of `gpu.module`s left out (device code, which
    the extractor never reads and which is most of a lowered module with
    kernels); the module ops themselves stay, with an empty region."""
    if '"gpu.module"' not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    close: str | None = None
    for line in lines:
        if close is not None:
            if line.startswith(close):
                out.append(line)
                close = None
            continue
        m = _KERNEL_MODULE.match(line)
        if m is not None:
            close = m.group(1) + "})"
        out.append(line)
    return "\n".join(out) if close is None else text


def parse_lowered(text: str) -> Any:
    try:
        return Parser(all_dialects(), opaque_pointers(text)).parse_module()
    except ParseError as e:
        raise LoweredParseError(str(e).splitlines()[0] if str(e) else "parse error") from e
    except Exception as e:  # xDSL raises assorted errors on odd input
        raise LoweredParseError(f"{type(e).__name__}: {e}") from e


def read_lowered(text: str, parser: str | None = None, module: Any = None) -> Any:
    """The lowered module for `verify.extract.calls`: the fast reader's objects, or
    (parser "xdsl", or text the fast reader does not handle) `module`, the
    xDSL module an in-process lowering already has, else xDSL's parse of
    `text`, raising `LoweredParseError` as `parse_lowered` does.  (Walking
    the fast reader's objects is quicker than walking xDSL's, so it reads
    even what an in-process lowering has parsed.)"""
    if text and (parser or DEFAULT_PARSER) == "fast":
        from gpu_alloc_verify.verify.ir.fastparse import Unsupported, parse_module

        try:
            return parse_module(without_kernel_bodies(text))
        except Unsupported:
            pass
    if module is not None:
        return module
    return parse_lowered(text)
