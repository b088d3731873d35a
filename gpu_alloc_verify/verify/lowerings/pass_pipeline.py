"""`--pipeline` text parsed once, in mlir-opt's textual pass-pipeline grammar.

    pipeline := ''  |  element (',' element)*
    element  := NAME options?            a pass or a registered pass pipeline
              | NAME '(' pipeline ')'    an op anchor: gpu.module(...), any(...)
    options  := '{' ... '}'              kept verbatim; braces nest ({a={b=1}})

Whitespace may surround any token.  NAME is any run of characters other
than `,(){}` and whitespace: mlir-opt itself looks names up only when it
builds the pipeline, so a name this parser accepts may still be unknown to
a given version (see `verify.lowerings.tool_passes`).  One outer
`builtin.module(...)` is optional: the pipeline is what runs inside it, and
`wrapped()` prints it inside exactly one.  Measured on 16, 19 and 22: an
empty anchor (`func.func()`), an empty element (`a,,b`) and options before
a nested pipeline (`x{o=1}(y)`) are refused by mlir-opt; so they are here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NoReturn

from gpu_alloc_verify.verify.model.errors import UsageError

MODULE_ANCHOR = "builtin.module"
KERNEL_ANCHOR = "gpu.module"
GPU_TO_LLVM = "gpu-to-llvm"
_SPECIAL = ",(){}"
# Registered pass pipelines that run gpu-to-llvm inside, after passes that
# rewrite host code (gpu-lower-to-nvvm-pipeline, 18 on: outlining,
# convert-scf-to-cf, convert-func-to-llvm, canonicalize, cse, ...), so the
# IR entering gpu-to-llvm is not the source.
HOST_REWRITING_PIPELINES = frozenset({"gpu-lower-to-nvvm-pipeline"})
_EMPTY_MODULE = re.compile(r"\s*builtin\.module\s*\(\s*\)\s*")


class PipelineSyntaxError(UsageError):
    """Malformed pipeline text; `column` is 1-based in the text as given."""

    def __init__(self, text: str, column: int, what: str) -> None:
        super().__init__(f"column {column}: {what}")
        self.text, self.column, self.what = text, column, what


@dataclass(frozen=True)
class Pass:
    name: str
    options: str | None = None  # the text between the braces; None without braces

    def text(self) -> str:
        return self.name if self.options is None else f"{self.name}{{{self.options}}}"

    def kernel_only(self) -> bool:
        return False


@dataclass(frozen=True)
class Anchor:
    op: str
    body: tuple[Pass | Anchor, ...]

    def text(self) -> str:
        return f"{self.op}({','.join(e.text() for e in self.body)})"

    def kernel_only(self) -> bool:
        # Passes nested in gpu.module see kernels only, never host code.
        return self.op == KERNEL_ANCHOR or all(e.kernel_only() for e in self.body)


Element = Pass | Anchor


@dataclass(frozen=True)
class PassAt:
    """One pass of the flat list, with the anchors it is nested in."""

    anchors: tuple[str, ...]
    pass_: Pass


@dataclass(frozen=True)
class Pipeline:
    elements: tuple[Element, ...]

    def text(self) -> str:
        """The pipeline as runs inside builtin.module, canonical spacing."""
        return ",".join(e.text() for e in self.elements)

    def wrapped(self) -> str:
        """What `--pass-pipeline=` takes: wrapped in exactly one builtin.module."""
        return f"{MODULE_ANCHOR}({self.text()})"

    def top_level(self) -> list[str]:
        return [e.text() for e in self.elements]

    def passes(self) -> list[PassAt]:
        out: list[PassAt] = []

        def walk(elements: tuple[Element, ...], anchors: tuple[str, ...]) -> None:
            for e in elements:
                if isinstance(e, Anchor):
                    walk(e.body, (*anchors, e.op))
                else:
                    out.append(PassAt(anchors, e))

        walk(self.elements, ())
        return out

    def pass_names(self) -> list[str]:
        return list(dict.fromkeys(p.pass_.name for p in self.passes()))

    def host_passes_before(self, target: str = GPU_TO_LLVM) -> list[Element]:
        """Top-level elements that run on host code before the first
        module-level `target` (with any options); [] when it does not run at
        module level.  Passes nested in gpu.module touch kernels only."""
        for k, e in enumerate(self.elements):
            if isinstance(e, Pass) and e.name == target:
                return [x for x in self.elements[:k] if not x.kernel_only()]
        return []

    def runtime(self) -> str | None:
        """The runtime the kernels are built for, where a pass says it: ROCDL
        kernels run on HIP's wrappers (their lowered host code calls
        mgpuMemGetDeviceMemRef*, which CUDA's lack)."""
        names = self.pass_names()
        if any("rocdl" in n for n in names):
            return "hip"
        return None

    def rewrites_source(self) -> bool:
        """Does a pass rewrite host code before gpu-to-llvm sees it (e.g.
        `func.func(gpu-async-region)`, gpu-kernel-outlining, canonicalize)?
        A registered pipeline that runs gpu-to-llvm after host passes of its
        own (`HOST_REWRITING_PIPELINES`) does too."""
        return bool(self.host_passes_before()) or any(
            isinstance(e, Pass) and e.name in HOST_REWRITING_PIPELINES for e in self.elements)


@functools.lru_cache(maxsize=256)
def parse(text: str) -> Pipeline:
    """Parse `text`, with or without one outer builtin.module(...)."""
    if _EMPTY_MODULE.fullmatch(text):  # mlir-opt's outermost anchor may be empty
        return Pipeline(())
    elements = _Parser(text).pipeline()
    if len(elements) == 1 and isinstance(elements[0], Anchor) \
            and elements[0].op == MODULE_ANCHOR:
        elements = elements[0].body  # the same pipeline, already wrapped
    return Pipeline(elements)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def pipeline(self) -> tuple[Element, ...]:
        self._skip()
        if self.pos == len(self.text):  # mlir-opt runs builtin.module() as no pass
            return ()
        elements = self._list()
        if self.pos < len(self.text):  # only a ')' stops _list early
            self._fail("unbalanced ')': no '(' to close")
        return elements

    def _list(self) -> tuple[Element, ...]:
        elements = [self._element()]
        while self._peek() == ",":
            self.pos += 1
            elements.append(self._element())
        return tuple(elements)

    def _element(self) -> Element:
        self._skip()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _SPECIAL \
                and not self.text[self.pos].isspace():
            self.pos += 1
        name = self.text[start:self.pos]
        if not name:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end"
            self._fail(f"expected a pass or op name, found {found}")
        nxt = self._peek()
        if nxt == "(":
            return self._anchor(name)
        options = self._options(name) if nxt == "{" else None
        self._end_of_element(name)
        return Pass(name, options)

    def _anchor(self, op: str) -> Anchor:
        open_at = self.pos
        self.pos += 1
        self._skip()
        if self._peek() == ")":
            self._fail(f"empty pipeline in '{op}(...)': name a pass or drop the anchor")
        body = self._list()
        if self._peek() != ")":
            self.pos = open_at
            self._fail(f"'(' of '{op}(' is never closed")
        self.pos += 1
        self._end_of_element(op)
        return Anchor(op, body)

    def _options(self, name: str) -> str:
        open_at, depth = self.pos, 0
        for i in range(self.pos, len(self.text)):
            depth += {"{": 1, "}": -1}.get(self.text[i], 0)
            if depth == 0:
                self.pos = i + 1
                return self.text[open_at + 1:i]
        self._fail(f"missing '}}' closing the options of '{name}'")

    def _end_of_element(self, name: str) -> None:
        nxt = self._peek()
        if nxt in (",", ")", ""):
            return
        if nxt == "}":
            self._fail("unbalanced '}': no '{' to close")
        self._fail(f"expected ',' or ')' after '{name}', found {nxt!r}")

    def _peek(self) -> str:
        """The next character after whitespace; '' at the end."""
        self._skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _fail(self, what: str) -> NoReturn:
        raise PipelineSyntaxError(self.text, self.pos + 1, what)
