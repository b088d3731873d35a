"""A line model of generic-form lowered text (the mutation operators' in
`verify.campaign.mutants_ir`, `mutants` and `mutants_flow`).

The lowerings print one op per line (`verify.ir.fastparse`'s docstring):

    %r = "d.op"(%a, %b)[^bb1] <{props}> : (T, T) -> T loc(L)

Operators rewrite that text line by line.  This module reads what they need
of each line (results, op name, operands, callee, result type, location, the
block and function it sits in) and offers the few edits they share (fresh
names, use replacement, op templates).  Whether a mutant is valid is not
decided here: the real MLIR parser judges it (`verify.campaign.selfcheck`).
Which handle to route, and how, is the mutation operators' business
(`verify.campaign.mutants_ir`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = re.compile(r'^(\s*)(?:(%[\w$.-]+)(?::\d+)? = )?"([\w.]+)"\(([^()]*)\)')
_CALLEE = re.compile(r"callee = @([\w$.-]+)")
_FUNCTION_TYPE = re.compile(r"function_type = (!llvm\.func<.*?>)(?=[,}])")
_TWO_SUCCESSORS = re.compile(r"\)\[\^([\w$.-]+), \^([\w$.-]+)\]")
_TOKEN = r"(?<![\w$.-])%s(?![\w$.#-])"


@dataclass
class Line:
    """One line of the module, as the operators see it."""

    index: int
    text: str
    indent: str = ""
    result: str = ""  # the first result's name ("" if none)
    name: str = ""  # the op name ("" for labels, region closers, ...)
    operands: tuple[str, ...] = ()
    block: int = -1  # the block the op sits in (ids unique in the module)
    func: int = -1  # the index of the enclosing llvm.func's line (-1: none)
    owner: str = ""  # the op whose region holds the line

    @property
    def callee(self) -> str:
        m = _CALLEE.search(self.text) if self.name == "llvm.call" else None
        return m.group(1) if m else ""

    @property
    def loc(self) -> str:
        k = self.text.rfind(" loc(")
        return self.text[k + 1:] if k >= 0 else ""

    @property
    def result_type(self) -> str:
        end = self.text.rfind(" loc(")
        end = end if end >= 0 else len(self.text)
        k = self.text.rfind(") -> ", 0, end)
        return self.text[k + 5:end].strip() if k >= 0 else ""

    @property
    def opens(self) -> bool:  # the op has regions that start on the next line
        return self.text.rstrip().endswith("({")


def read_lines(text: str) -> list[Line]:
    """Every line of `text`, with its op (if it is one) and its place."""
    out: list[Line] = []
    blocks: list[int] = [0]
    owners: list[tuple[str, int]] = [("", -1)]  # (op name, line of the op)
    serial = 0
    funcs: list[int] = [-1]
    for i, raw in enumerate(text.split("\n")):
        s = raw.strip()
        line = Line(i, raw, block=blocks[-1], func=funcs[-1], owner=owners[-1][0])
        m = _HEAD.match(raw)
        if s.startswith("^"):  # a new block of the same region
            serial += 1
            blocks[-1] = serial
            line.block = serial
        elif s.startswith("})") or s.startswith("}, {"):
            blocks.pop()
            if s.startswith("}, {"):  # the next region of the same op
                serial += 1
                blocks.append(serial)
            else:
                name, _ = owners.pop()
                if name == "llvm.func":
                    funcs.pop()
        elif m:
            line.indent, line.result, line.name = m.group(1), m.group(2) or "", m.group(3)
            line.operands = tuple(x.strip() for x in m.group(4).split(",") if x.strip())
        if m and line.opens:
            serial += 1
            blocks.append(serial)
            owners.append((line.name, i))
            if line.name == "llvm.func":
                funcs.append(i)
        out.append(line)
    return out


def llvm_function_type(text: str) -> str | None:
    """The `!llvm.func<...>` an `llvm.func` line's properties declare, else None."""
    m = _FUNCTION_TYPE.search(text)
    return m.group(1) if m else None


def two_successors(text: str) -> tuple[str, str] | None:
    """The labels (no `^`) of a branch line's two successors without block
    operands, `)[^a, ^b]` (a conditional branch: true, false), else None."""
    m = _TWO_SUCCESSORS.search(text)
    return (m.group(1), m.group(2)) if m else None


def fresh(text: str, stem: str = "mu") -> str:
    """A name prefix (`%{stem}K_`) no value of `text` uses."""
    k = 0
    while f"%{stem}{k}_" in text or f"^{stem}{k}_" in text:
        k += 1
    return f"{stem}{k}_"


def uses(line: Line, value: str) -> bool:
    return value in line.operands or re.search(_TOKEN % re.escape(value), line.text) is not None


def replace_uses(lines: list[str], value: str, new: str, start: int, end: int) -> bool:
    """Rename uses of `value` to `new` in lines[start:end]; any renamed?"""
    pat = re.compile(_TOKEN % re.escape(value))
    hit = False
    for k in range(start, min(end, len(lines))):
        text, n = pat.subn(new, lines[k])
        hit |= n > 0
        lines[k] = text
    return hit


def func_end(infos: list[Line], func: int) -> int:
    """The index just past the last line of the llvm.func opened at `func`."""
    end = func + 1
    while end < len(infos) and (infos[end].func == func or infos[end].index == func):
        end += 1
    return end


def op(result: str, name: str, operands: list[str], types: list[str], rtype: str,
       loc: str, props: str = "", indent: str = "    ") -> str:
    """One op in generic form."""
    head = f"{result} = " if result else ""
    attrs = f" <{{{props}}}>" if props else ""
    return (f'{indent}{head}"{name}"({", ".join(operands)}){attrs} : '
            f'({", ".join(types)}) -> {rtype or "()"} {loc}').rstrip()


def constant(result: str, value: int, type_: str, loc: str, indent: str) -> str:
    return op(result, "llvm.mlir.constant", [], [], type_, loc, f"value = {value} : {type_}",
              indent)


def int_width(type_: str) -> int | None:
    m = re.fullmatch(r"i(\d+)", type_.strip())
    return int(m.group(1)) if m else None


def signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def constant_value(line: Line) -> int | None:
    """The integer an `llvm.mlir.constant` line makes, if it makes one."""
    if line.name != "llvm.mlir.constant":
        return None
    m = re.search(r"value = (-?\d+) : (i\d+|index)\b", line.text)
    return int(m.group(1)) if m else None
