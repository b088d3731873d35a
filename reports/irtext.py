"""Just enough reading of MLIR text for reports: source ops and lowered runtime calls.

The source is the harness's custom-form program (one op per line, each with
`loc("opN")`); the lowered text is generic or custom form.  Line-based on
purpose: a report must render whatever a lowering printed, even text that
does not parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]
_LOC_RE = re.compile(r'loc\("([^"]+)"\)')
_FUNC_RE = re.compile(r'(?:(?:llvm|func)\.func\b[^@\n]*@([\w$.]+)|sym_name = "([\w$.]+)")')
_GENERIC_CALL = re.compile(
    r'^\s*(?:(%[\w$.#:]+)\s*=\s*)?"llvm\.call"\(([^)]*)\).*?callee = @([\w$.]+)')
_CUSTOM_CALL = re.compile(r"^\s*(?:(%[\w$.#:]+)\s*=\s*)?llvm\.call @([\w$.]+)\(([^)]*)\)")
_SRC_OP = re.compile(r"^\s*(?:(%[^=]+?)\s*=\s*)?(gpu\.\w+)(.*)$")


def counterexample(violation: Record) -> Record:
    cex = violation.get("counterexample")
    return cex if isinstance(cex, dict) else {}


def marked_ops(violation: Record) -> set[str]:
    """Source op ids whose lowered code is the offending code: marked_calls, else source_op."""
    marked = violation.get("marked_calls")
    if isinstance(marked, str):
        marked = [marked]
    out = {str(m) for m in marked if m} if isinstance(marked, list) else set()
    source_op = counterexample(violation).get("source_op")
    if not out and isinstance(source_op, str) and source_op:
        out.add(source_op)
    return out


def loc_id(line: str) -> str | None:
    """The source op id a line carries (`loc("op3")` or `loc("p0/op3")` -> "op3")."""
    found = _LOC_RE.findall(line)
    return found[-1].rsplit("/", 1)[-1] if found else None


@dataclass
class SrcOp:
    func: str
    name: str  # gpu.alloc, gpu.wait, ...
    loc: str | None  # the literal loc string in the source, e.g. "op3"
    results: list[str]
    is_async: bool
    deps: list[str]
    host_shared: bool

    @property
    def id(self) -> str | None:
        return self.loc.rsplit("/", 1)[-1] if self.loc else None

    @property
    def token(self) -> str | None:
        return self.results[-1] if self.is_async and self.results else None


@dataclass
class Source:
    functions: list[str] = field(default_factory=list)
    ops: list[SrcOp] = field(default_factory=list)
    branches: bool = False

    def by_id(self, op_id: str) -> SrcOp | None:
        return next((op for op in self.ops if op.id == op_id), None)

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


def parse_source(text: str) -> Source:
    src = Source()
    func = ""
    for line in text.splitlines():
        m = re.search(r"func\.func\s+(?:\w+\s+)?@([\w$.]+)", line)
        if m:
            func = m.group(1)
            src.functions.append(func)
            continue
        if re.search(r"\b(scf\.(if|for|while)|cf\.(cond_)?br)\b", line):
            src.branches = True
        m = _SRC_OP.match(line)
        if not m:
            continue
        results = [r.strip() for r in (m.group(1) or "").split(",") if r.strip()]
        rest = m.group(3)
        is_async = re.match(r"\s+async\b", rest) is not None
        deps_m = re.match(r"\s*(?:async\s*)?\[([^\]]*)\]", rest)
        deps = [d.strip() for d in deps_m.group(1).split(",") if d.strip()] if deps_m else []
        loc = _LOC_RE.findall(rest)
        src.ops.append(SrcOp(func, m.group(2), loc[-1] if loc else None, results, is_async, deps,
                             re.search(r"\bhost_shared\b", rest) is not None))
    return src


@dataclass
class Call:
    index: int  # line number in the lowered text
    func: str
    result: str | None
    callee: str
    operands: list[str]
    loc: str | None  # source op id


def parse_calls(lowered: str) -> list[Call]:
    """Runtime calls of lowered text, generic or custom form."""
    calls: list[Call] = []
    func = ""
    for i, line in enumerate(lowered.splitlines()):
        fm = _FUNC_RE.search(line)
        if fm and ("llvm.func" in line or "func.func" in line):
            func = fm.group(1) or fm.group(2)
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
