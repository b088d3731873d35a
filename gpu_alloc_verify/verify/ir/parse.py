"""One front door for MLIR text: `parse`.

Two readers exist: the fast reader (`verify.ir.fastparse`: generic form
only, small objects, about ten times cheaper) and xDSL's parser (any form
xDSL reads, its own classes).  `parse` tries the fast reader first and
falls back to xDSL where it declines (`ReaderDeclined`); this is the only
module that knows both exist.  The two give the same answers to what the
harness asks (`tests/ir/test_fastparse_equivalence.py`).

A caller that walks one reader's classes asks for it by `reader`: "xdsl"
for what is written against xDSL's objects (the model reader
`verify.source.to_program`, the interpreters in `oracles/`), "fast" for
the fast reader alone (`ReaderDeclined` where it declines, so a caller with
a cheaper fallback than xDSL's parse can take it).

`side` picks xDSL's dialects (`verify.ir.xdsl_context`): "source" leaves gpu
unregistered, so gpu ops read the same whatever their generic spelling in
a given MLIR version; "lowered" registers every dialect.
"""

from __future__ import annotations

import re
from typing import Literal, TypeAlias, overload

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.strings import utf8_unescaped
from gpu_alloc_verify.verify.ir.xdsl_context import all_dialects, gpu_unregistered
from gpu_alloc_verify.verify.model.errors import ReaderDeclined

__all__ = ["NotParsed", "ParsedModule", "ReaderDeclined", "Reader", "Side", "opaque_pointers",
           "parse", "parse_attribute"]

Side = Literal["source", "lowered"]
Reader = Literal["any", "fast", "xdsl"]
# A parsed module, of either reader (both meet `verify.ir.protocols.IRModule`).
ParsedModule: TypeAlias = fastparse.Op | ModuleOp

# `!llvm.ptr<...>` and, inside other LLVM types, the short `ptr<...>`.
_PTR_RE = re.compile(r"(?<![\w])(?:!llvm\.)?ptr<")
# xDSL's first message line when it names a position: `NAME:LINE:COL`.
_POS = re.compile(r"^\S*:(\d+):(\d+)$")


class NotParsed(Exception):
    """xDSL's parser rejected the text.  `str()` is its message; the error it
    raised is `error` (and `__cause__`): it raises several types."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error
        # The message's non-empty lines, stripped.
        self.lines = [ln.strip() for ln in str(error).strip().splitlines() if ln.strip()]
        pos = _POS.match(self.lines[0]) if self.lines else None
        # (line, column) where xDSL points into the text, when it does.
        self.at = (int(pos.group(1)), int(pos.group(2))) \
            if pos and len(self.lines) > 1 else None
        # A syntax error (`ParseError`), not a verifier's or the parser's own.
        self.syntax = isinstance(error, ParseError)


@overload
def parse(text: str, *, side: Side = ..., name: str | None = ...,
          reader: Literal["xdsl"], opaque: bool = ...) -> ModuleOp: ...


@overload
def parse(text: str, *, side: Side = ..., name: str | None = ...,
          reader: Literal["fast"], opaque: bool = ...) -> fastparse.Op: ...


@overload
def parse(text: str, *, side: Side = ..., name: str | None = ...,
          reader: Reader = ..., opaque: bool = ...) -> ParsedModule: ...


def parse(text: str, *, side: Side = "source", name: str | None = None,
          reader: Reader = "any", opaque: bool = True) -> ParsedModule:
    """The module of MLIR `text`: the fast reader's objects where it reads the
    text (reader "any" or "fast"), else xDSL's.  `name` is the file xDSL's
    messages name; `opaque` makes typed pointers opaque for xDSL (the fast
    reader keeps types as text).  Raises `ReaderDeclined` (reader "fast")
    or `NotParsed` (xDSL rejects the text).  Non-ASCII text that mlir-opt
    printed as escapes (`@"\\C6\\92..."`) is read as that text by both
    readers (`verify.ir.strings`), not as xDSL's bytes."""
    text = utf8_unescaped(text)
    if reader != "xdsl":
        try:
            return fastparse.parse_module(text)
        except ReaderDeclined:
            if reader == "fast":
                raise
    ctx = gpu_unregistered() if side == "source" else all_dialects()
    given = opaque_pointers(text) if opaque else text
    try:
        if name is None:  # xDSL's own default name
            return Parser(ctx, given).parse_module()
        return Parser(ctx, given, name).parse_module()
    except Exception as e:  # xDSL raises several error types
        raise NotParsed(e) from e


def parse_attribute(text: str, *, side: Side = "lowered") -> Attribute:
    """One attribute's text (what the fast reader keeps as text, an affine
    map say) in xDSL's classes.  Raises `NotParsed`."""
    ctx = gpu_unregistered() if side == "source" else all_dialects()
    try:
        return Parser(ctx, text).parse_attribute()
    except Exception as e:  # xDSL raises several error types
        raise NotParsed(e) from e


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
