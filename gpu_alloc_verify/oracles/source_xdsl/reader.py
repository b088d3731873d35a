"""xDSL's parser for the source runner: each repeated op signature read once,
plain file and name locations read directly.

In generic form every op ends in its signature, `: (T, U) -> V`, then its
location or the end of the line; a large host function repeats a handful of
signatures thousands of times, and reading the types in them is about half
of xDSL's parse.  `SignatureCachingParser` reads a signature as xDSL does
the first time its exact text is met, and after that hands back the same
(immutable) `FunctionType` and moves past the text.

Why that is the parse xDSL would make: a type's reading depends only on its
characters and the parser's context (dialects, aliases), which are the same
across one module; the cached text is the span the first reading consumed
exactly, ending where whitespace starts (so the last token ends there
whatever follows); a later op's span is cached only when it is that same
text, up to the same kind of boundary.  `tests/oracles/test_source_reader.py`
checks that both parses print the same module.

Locations: every op of a user's file carries `loc("f.mlir":L:C)`, and
xDSL reads it token by token.  A location of exactly that form, or a
name location `loc("op4")`, without escapes or whitespace inside, is made
here into the attribute xDSL's `_parse_location` makes of it; any other
form is left to xDSL.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FunctionType,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRTokenKind

from gpu_alloc_verify.verify.ir import parse as mlir
from gpu_alloc_verify.verify.ir.locations import plain_location_at
from gpu_alloc_verify.verify.ir.strings import utf8_unescaped
from gpu_alloc_verify.verify.ir.xdsl_context import gpu_unregistered

_LOC = " loc("


class SignatureCachingParser(Parser):
    """xDSL's `Parser`, each op signature's text read once per module."""

    def __init__(self, ctx: Context, input: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        self._signatures: dict[str, FunctionType] = {}
        self._files: dict[str, StringAttr] = {}  # a location's file: one attribute each

    def _span(self, start: int) -> str:
        """The text from `start` to the end of its line or its location,
        without trailing whitespace: a signature's text, if one starts there."""
        text = self.lexer.input.content
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        loc = text.find(_LOC, start, end)
        return text[start: loc if loc >= 0 else end].rstrip()

    def parse_optional_function_type(self) -> FunctionType | None:
        if self._current_token.kind != MLIRTokenKind.L_PAREN:
            return None
        start = self.pos
        span = self._span(start)
        known = self._signatures.get(span)
        if known is not None:
            self._resume_from(start + len(span))
            return known
        parsed = super().parse_optional_function_type()
        if parsed is None:
            return None
        # Cached only when the reading consumed exactly `span`: what follows
        # it up to the next token is whitespace.
        text = self.lexer.input.content
        if self.pos >= start + len(span) and not text[start + len(span): self.pos].strip():
            self._signatures[span] = parsed
        return parsed

    def parse_optional_location(self) -> LocationAttr | None:
        start = self.pos
        found = plain_location_at(self.lexer.input.content, start)
        if found is None:
            return super().parse_optional_location()
        name, line, col = found.groups()
        file = self._files.get(name)
        if file is None:
            file = self._files[name] = StringAttr(name)
        self._resume_from(found.end())
        if line is None:
            return NameLoc(file, NoneAttr())
        return FileLineColLoc(file, IntAttr(int(line)), IntAttr(int(col)))


def parse_source(text: str) -> ModuleOp:
    """Source text (generic form) in xDSL's classes, the gpu dialect read
    unregistered, as `verify.ir.parse.parse(text, side="source",
    reader="xdsl", opaque=False)` reads it (raises its `NotParsed`)."""
    text = utf8_unescaped(text)
    try:
        return SignatureCachingParser(gpu_unregistered(), text).parse_module()
    except Exception as e:  # xDSL raises several error types
        raise mlir.NotParsed(e) from e
