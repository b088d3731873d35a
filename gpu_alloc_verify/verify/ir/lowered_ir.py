"""Parsing lowered modules, through `verify.ir.parse.parse` (every dialect
registered, unknown ops allowed): the fast reader's objects where it reads
the text, xDSL's otherwise."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast, overload

from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.parse import NotParsed, ParsedModule, ReaderDeclined, parse
from gpu_alloc_verify.verify.ir.protocols import IROp
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp, StringAttr
    from xdsl.ir import Operation

# `read_lowered`'s parser: "fast" (default) or "xdsl"; the environment
# variable GPU_ALLOC_VERIFY_PARSER overrides it.
PARSERS = ("fast", "xdsl")
DEFAULT_PARSER = os.environ.get("GPU_ALLOC_VERIFY_PARSER", "fast")


class LoweredParseError(GpuAllocVerifyError):
    """The lowering's output is not MLIR xDSL can read (a verdict input)."""


def op_name(op: IROp) -> str:
    """The op's MLIR name: xDSL's registered ops, the generic ones it keeps
    for ops it does not know (`builtin.unregistered`, the name in
    `op_name__`) and `verify.ir.fastparse`'s ops alike."""
    name = op.name
    if name == "builtin.unregistered":
        attr = op.attributes.get("op_name__")
        if attr is not None:  # the name xDSL keeps: a string attribute
            return str(cast("StringAttr | fastparse.StrAttr", attr).data)
    return str(name)


@overload
def module_ops(module: fastparse.Op) -> Iterator[fastparse.Op]: ...


@overload
def module_ops(module: Operation) -> Iterator[Operation]: ...


@overload
def module_ops(module: IROp) -> Iterator[IROp]: ...


def module_ops(module: IROp) -> Iterator[IROp]:
    """The ops of a module's body and of the `builtin.module`s nested in it
    (where host functions live), not a `gpu.module`'s and not what functions
    hold: finding a function walks the module's top, not every op."""
    for region in module.regions:
        for block in region.blocks:
            for inner in block.ops:
                name = op_name(inner)
                if name == "builtin.module":
                    yield from module_ops(inner)
                elif name != "gpu.module":
                    yield inner


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


def parse_lowered(text: str) -> ModuleOp:
    """xDSL's module of lowered text (what in-process checks walk)."""
    try:
        return parse(text, side="lowered", reader="xdsl")
    except NotParsed as e:
        msg = str(e)
        if e.syntax:
            raise LoweredParseError(msg.splitlines()[0] if msg else "parse error") from e.error
        raise LoweredParseError(f"{type(e.error).__name__}: {msg}") from e.error


def read_lowered(text: str, parser: str | None = None,
                 module: ModuleOp | None = None) -> ParsedModule:
    """The lowered module for `verify.extract.calls`: the fast reader's objects, or
    (parser "xdsl", or text the fast reader does not handle) `module`, the
    xDSL module an in-process lowering already has, else xDSL's parse of
    `text`, raising `LoweredParseError` as `parse_lowered` does.  (Walking
    the fast reader's objects is quicker than walking xDSL's, so it reads
    even what an in-process lowering has parsed.)"""
    # Not one `parse`: the fast reader reads the text without kernel bodies,
    # and where it declines an xDSL module already at hand is taken first.
    if text and (parser or DEFAULT_PARSER) == "fast":
        try:
            return parse(without_kernel_bodies(text), side="lowered", reader="fast")
        except ReaderDeclined:
            pass
    if module is not None:
        return module
    return parse_lowered(text)
