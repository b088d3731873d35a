"""Line-based reading of MLIR text for people-facing output: source ops and
lowered runtime calls.

The source is a program as printed by the generator (one op per line, each
with `loc("opN")`) or a user's file as written (ops named `file:line:col`);
the lowered text is generic or custom form.  Line-based on purpose: triage
and reports must read whatever a lowering printed, even text that does not
parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from gpu_alloc_verify.verify.ir.locations import id_on_line, split_file_key, strip

_FUNC_RE = re.compile(r'(?:(?:llvm|func)\.func\b[^@\n]*@([\w$.]+)|sym_name = "([\w$.]+)")')
_GENERIC_CALL = re.compile(
    r'^\s*(?:(%[\w$.#:]+)\s*=\s*)?"llvm\.call"\(([^)]*)\).*?callee = @([\w$.]+)')
_CUSTOM_CALL = re.compile(r"^\s*(?:(%[\w$.#:]+)\s*=\s*)?llvm\.call @([\w$.]+)\(([^)]*)\)")
_SRC_OP = re.compile(r"^\s*(?:(%[^=]+?)\s*=\s*)?(gpu\.\w+|memref\.(?:load|store))\b(.*)$")
# An op of the gpu runtime dialect or a cast left in lowered text (custom or generic).
_RESIDUE = re.compile(r'^\s*(?:%[^=]+=\s*)?"?(gpu\.(?:alloc|dealloc|wait|memcpy|memset|'
                      r'launch_func|launch)|builtin\.unrealized_conversion_cast)\b')
# The source op id a line carries (`loc("op3")` or `loc("p0/op3")` -> "op3";
# `loc("k.mlir":4:7)` -> "k.mlir:4:7", the key `verify.ir.attrs.source_loc` gives).
loc_id = id_on_line


@lru_cache(maxsize=16)
def strip_locs(text: str) -> str:
    """`text` without its location attributes (` loc(...)`, nested ones too)."""
    out = [strip(line) for line in text.splitlines()]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


@dataclass
class SrcOp:
    func: str
    name: str  # gpu.alloc, gpu.wait, memref.load, ...
    loc: str | None  # the source op key its location gives (`loc_id`), e.g. "op3"
    results: list[str]
    is_async: bool
    deps: list[str]
    host_shared: bool
    line: int = 0  # 1-based line of the source text
    col: int = 0  # 1-based column where the op starts (its first result, else its name)
    text: str = ""  # the op's line, as written
    nesting: tuple[str, ...] = ()  # enclosing scf.if / scf.for / scf.while, outermost first

    @property
    def id(self) -> str | None:
        return self.loc or None

    @property
    def token(self) -> str | None:
        return self.results[-1] if self.is_async and self.results else None


@dataclass
class Source:
    functions: list[str] = field(default_factory=list)
    ops: list[SrcOp] = field(default_factory=list)
    branches: bool = False

    def by_id(self, op_id: str) -> SrcOp | None:
        """The op named `op_id`: its own `loc("opN")`, else a `file:line:col` of the text."""
        found = next((op for op in self.ops if op.id == op_id), None)
        if found is not None:
            return found
        at = split_file_key(op_id)
        if at is None:
            return None
        return next((op for op in self.ops if op.line == at[1]), None)

    def awaited_tokens(self) -> set[str]:
        """Tokens a synchronous gpu.wait depends on, directly or through other tokens."""
        producer = {op.token: op for op in self.ops if op.token}
        todo = [d for op in self.ops if op.name == "gpu.wait" and not op.is_async for d in op.deps]
        seen: set[str] = set()
        while todo:
            tok = todo.pop()
            if tok in seen:
                continue
            seen.add(tok)
            if tok in producer:
                todo.extend(producer[tok].deps)
        return seen


_REGION_OPEN = re.compile(r"\b(scf\.(?:if|for|while)|cf\.(?:cond_)?br)\b")


def parse_source(text: str) -> Source:
    src = Source()
    func = ""
    stack: list[tuple[str, int]] = []  # (construct, brace depth it opened at)
    depth = 0
    for n, line in enumerate(text.splitlines(), 1):
        m = re.search(r"func\.func\s+(?:\w+\s+)?@([\w$.]+)", line)
        if m:
            func = m.group(1)
            src.functions.append(func)
        nesting = tuple(s for s, _ in stack)
        opens, closes = line.count("{"), line.count("}")
        region = _REGION_OPEN.search(line)
        if region:
            src.branches = True
            if opens > closes:
                stack.append((region.group(1), depth))
        depth += opens - closes
        while stack and stack[-1][1] >= depth:
            stack.pop()
        m = _SRC_OP.match(line)
        if not m:
            continue
        results = [r.strip() for r in (m.group(1) or "").split(",") if r.strip()]
        rest = m.group(3)
        is_async = re.match(r"\s+async\b", rest) is not None
        deps_m = re.match(r"\s*(?:async\s*)?\[([^\]]*)\]", rest)
        deps = [d.strip() for d in deps_m.group(1).split(",") if d.strip()] if deps_m else []
        col = len(line) - len(line.lstrip()) + 1
        src.ops.append(SrcOp(func, m.group(2), loc_id(rest), results, is_async, deps,
                             re.search(r"\bhost_shared\b", rest) is not None, n, col,
                             line.strip(), nesting))
    return src


@dataclass
class Call:
    index: int  # line number in the lowered text (0-based)
    func: str
    result: str | None
    callee: str
    operands: list[str]
    loc: str | None  # source op id


@dataclass
class Residue:
    """A gpu runtime op or cast left in lowered text."""

    index: int  # 0-based line
    func: str
    name: str  # gpu.alloc, builtin.unrealized_conversion_cast, ...
    loc: str | None


def func_of_line(line: str, current: str) -> str:
    """The function a line of lowered text is in, given the one before it."""
    fm = _FUNC_RE.search(line)
    if fm and ("llvm.func" in line or "func.func" in line):
        return fm.group(1) or fm.group(2)
    return current


def parse_calls(lowered: str) -> list[Call]:
    """Runtime calls of lowered text, generic or custom form."""
    calls: list[Call] = []
    func = ""
    for i, line in enumerate(lowered.splitlines()):
        func = func_of_line(line, func)
        gm, cm = _GENERIC_CALL.match(line), _CUSTOM_CALL.match(line)
        if gm:
            result, operands, callee = gm.group(1), gm.group(2), gm.group(3)
        elif cm:
            result, callee, operands = cm.group(1), cm.group(2), cm.group(3)
        else:
            continue
        ops = [o.strip() for o in operands.split(",") if o.strip()]
        calls.append(Call(i, func, result, callee, ops, loc_id(line)))
    return calls


def parse_residue(lowered: str) -> list[Residue]:
    """gpu runtime ops and unrealized casts left in lowered text."""
    out: list[Residue] = []
    func = ""
    for i, line in enumerate(lowered.splitlines()):
        func = func_of_line(line, func)
        m = _RESIDUE.match(line)
        if m:
            name = m.group(1)
            out.append(Residue(i, func, name if "." in name else f"builtin.{name}", loc_id(line)))
    return out
