"""Meaning-preserving rewrites of a lowered module, for metamorphic testing.

Each rewrite takes the generic-form text `mlir-opt` prints
(`--mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope`,
one op per line, two spaces per nesting level, every op with its `loc(...)`)
and returns text that means the same thing: the same runtime calls, with the
same arguments, in the same order on every path.  The result may mix custom
and generic syntax; `roundtrip` (or `apply`) prints it back in generic form
through `mlir-opt-19`, which also proves that it is valid MLIR.  Every op a
rewrite adds carries the `loc(...)` of the call it belongs to, and every
runtime call keeps its own `loc(...)`, so a source op's calls still name it.

- `handle_via_memory`: each handle `mgpuStreamCreate` / `mgpuEventCreate`
  returns is stored to a stack slot (`llvm.alloca` in the function's entry
  block, as clang -O0 would) right after the call, and read back: once, by a
  load every later use reads (`per_use=False`), or by a fresh load right
  before each use (`per_use=True`).
- `outline_calls`: each `llvm.call @mgpuX(args)` becomes a call of a new
  internal `llvm.func @__outlined_mgpuX_N(params)` whose body makes that call
  with its parameters and returns its result.
- `scf_to_cf`: `mlir-opt-19 --convert-scf-to-cf` (structured control flow
  to blocks and branches).
- `select_const`: each handle goes through `llvm.select` with a constant
  condition that always picks it (`select true, h, null` or
  `select false, null, h`, alternately), and later uses read the select.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt

SPLIT = "// -----"
PRINT_FLAGS = ("--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope")
HANDLE_CALLEES = ("mgpuStreamCreate", "mgpuEventCreate")

_NAME_CHARS = r"[\w$.-]"
_HANDLE_DEF = re.compile(
    r'^(?P<indent>\s*)(?P<res>%[\w$.-]+) = "llvm\.call"\(\) <\{[^\n]*callee = @(?P<callee>'
    + "|".join(HANDLE_CALLEES) + r')\b'
)
# A whole generic llvm.call line (operands are plain SSA names, no parens).
_CALL = re.compile(
    r'^(?P<indent>\s*)(?:(?P<res>%[\w$.-]+) = )?"llvm\.call"\((?P<operands>[^()]*)\) '
    r'<\{(?P<attrs>.*)\}> : \((?P<argtypes>.*)\) -> (?P<restype>\S+) (?P<loc>loc\(.*\))$'
)
_CALLEE = re.compile(r"callee = @(?P<name>[\w$.-]+)")


class RewriteError(AssertionError):
    """A rewrite produced text mlir-opt-19 does not accept (a bug of the rewrite)."""


# ---------------------------------------------------------------- text helpers

def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


def _loc_of(line: str) -> str:
    """The trailing `loc(...)` of an op line (balanced parens, strings skipped)."""
    line = line.rstrip()
    start = line.rfind(" loc(")
    while start >= 0:
        cand = line[start + 1:]
        if _balanced(cand):
            return cand
        start = line.rfind(" loc(", 0, start)
    raise ValueError(f"no loc(...) at the end of: {line}")


def _balanced(text: str) -> bool:
    depth, in_str, esc = 0, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _use_re(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!{_NAME_CHARS}){re.escape(name)}(?!{_NAME_CHARS}|[#:])")


@dataclass
class _Member:
    """A top-level op of the module: lines[start..end] inclusive."""

    start: int
    end: int


def _members(lines: list[str]) -> list[_Member]:
    """The module's top-level ops (functions and declarations), by indentation:
    `"builtin.module"() ({` at column 0, its members at two spaces, a member
    with regions ends at the next two-space line starting with `}`."""
    out: list[_Member] = []
    i = 1
    while i < len(lines) - 1:
        line = lines[i]
        if _indent(line) != "  " or line.lstrip().startswith(("}", "^")):
            i += 1
            continue
        j = i
        if line.rstrip().endswith("({"):
            j = i + 1
            while not (_indent(lines[j]) == "  " and lines[j].lstrip().startswith("}")):
                j += 1
        out.append(_Member(i, j))
        i = j + 1
    return out


def _entry_insert_point(lines: list[str], member: _Member) -> int:
    """Index before which ops go to be first in the function's entry block."""
    k = member.start + 1
    if lines[k].lstrip().startswith("^"):
        k += 1
    return k


def _check_module(lines: list[str]) -> None:
    if not lines or not lines[0].startswith('"builtin.module"() ({'):
        raise ValueError("expected a generic-form module (mlir-opt --mlir-print-op-generic)")


# ---------------------------------------------------------------- the rewrites

def handle_via_memory(text: str, per_use: bool = False) -> str:
    """Route every stream/event handle through a stack slot."""
    lines = text.rstrip("\n").split("\n")
    _check_module(lines)
    counter = 0
    for member in reversed(_members(lines)):
        body = lines[member.start: member.end + 1]
        entry = _entry_insert_point(lines, member) - member.start
        defs = [(k, m) for k, ln in enumerate(body) if (m := _HANDLE_DEF.match(ln))]
        if not defs:
            continue
        prologue: list[str] = []
        ind_entry = _indent(body[entry]) if entry < len(body) else "    "
        # Rewrite the later defs first so earlier indices stay valid.
        for k, m in reversed(defs):
            counter += 1
            name, loc, ind = m["res"], _loc_of(body[k]), m["indent"]
            tag = f"%hm{counter}"
            prologue[:0] = [
                f"{ind_entry}{tag}_one = llvm.mlir.constant(1 : i64) : i64 {loc}",
                f"{ind_entry}{tag}_slot = llvm.alloca {tag}_one x !llvm.ptr "
                f": (i64) -> !llvm.ptr {loc}",
            ]
            use = _use_re(name)
            after = [f"{ind}llvm.store {name}, {tag}_slot : !llvm.ptr, !llvm.ptr {loc}"]
            rest = body[k + 1:]
            if per_use:
                new_rest: list[str] = []
                n = 0
                for ln in rest:
                    if use.search(ln):
                        n += 1
                        val = f"{tag}_u{n}"
                        new_rest.append(f"{_indent(ln)}{val} = llvm.load {tag}_slot "
                                        f": !llvm.ptr -> !llvm.ptr {loc}")
                        ln = use.sub(val, ln)
                    new_rest.append(ln)
                rest = new_rest
            else:
                val = f"{tag}_val"
                after.append(f"{ind}{val} = llvm.load {tag}_slot : !llvm.ptr -> !llvm.ptr {loc}")
                rest = [use.sub(val, ln) for ln in rest]
            body = body[: k + 1] + after + rest
        body = body[:entry] + prologue + body[entry:]
        lines[member.start: member.end + 1] = body
    return "\n".join(lines) + "\n"


def handle_via_memory_per_use(text: str) -> str:
    return handle_via_memory(text, per_use=True)


def outline_calls(text: str, callee_prefix: str = "mgpu") -> str:
    """Move every runtime call into a helper function of its own."""
    lines = text.rstrip("\n").split("\n")
    _check_module(lines)
    helpers: list[str] = []
    out: list[str] = []
    n = 0
    for ln in lines:
        m = _CALL.match(ln)
        callee = _CALLEE.search(m["attrs"]) if m else None
        if not (m and callee and callee["name"].startswith(callee_prefix)):
            out.append(ln)
            continue
        helper = f"__outlined_{callee['name']}_{n}"
        n += 1
        operands = [o.strip() for o in m["operands"].split(",") if o.strip()]
        types = _split_types(m["argtypes"])
        if len(types) != len(operands):
            raise ValueError(f"cannot pair operands and types in: {ln}")
        attrs_outer = _CALLEE.sub(f"callee = @{helper}", m["attrs"], count=1)
        res = f"{m['res']} = " if m["res"] else ""
        out.append(f'{m["indent"]}{res}"llvm.call"({m["operands"]}) <{{{attrs_outer}}}> '
                   f': ({m["argtypes"]}) -> {m["restype"]} {m["loc"]}')
        params = ", ".join(f"%p{i}: {t} {m['loc']}" for i, t in enumerate(types))
        args = ", ".join(f"%p{i}" for i in range(len(types)))
        void = m["restype"] == "()"
        sig = f"({params})" + ("" if void else f" -> {m['restype']}")
        inner_res = "" if void else "%r = "
        ret = "llvm.return" if void else f"llvm.return %r : {m['restype']}"
        helpers += [
            f"  llvm.func internal @{helper}{sig} {{",
            f'    {inner_res}"llvm.call"({args}) <{{{m["attrs"]}}}> '
            f': ({m["argtypes"]}) -> {m["restype"]} {m["loc"]}',
            f"    {ret} {m['loc']}",
            f"  }} {m['loc']}",
        ]
    if not helpers:
        return text
    # Helpers go just before the module's closing line.
    out[-1:-1] = helpers
    return "\n".join(out) + "\n"


def _split_types(text: str) -> list[str]:
    """`i64, !llvm.ptr, !llvm.struct<(ptr, i64)>` -> its top-level items."""
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        items.append(cur.strip())
    return items


def select_const(text: str) -> str:
    """Pass every stream/event handle through a select whose condition is a constant."""
    lines = text.rstrip("\n").split("\n")
    _check_module(lines)
    counter = 0
    for member in reversed(_members(lines)):
        body = lines[member.start: member.end + 1]
        defs = [(k, m) for k, ln in enumerate(body) if (m := _HANDLE_DEF.match(ln))]
        for k, m in reversed(defs):
            counter += 1
            name, loc, ind = m["res"], _loc_of(body[k]), m["indent"]
            tag = f"%sel{counter}"
            take_true = counter % 2 == 1
            cond = "true" if take_true else "false"
            pick = f"{name}, {tag}_z" if take_true else f"{tag}_z, {name}"
            added = [
                f"{ind}{tag}_c = llvm.mlir.constant({cond}) : i1 {loc}",
                f"{ind}{tag}_z = llvm.mlir.zero : !llvm.ptr {loc}",
                f"{ind}{tag} = llvm.select {tag}_c, {pick} : i1, !llvm.ptr {loc}",
            ]
            use = _use_re(name)
            body = body[: k + 1] + added + [use.sub(tag, ln) for ln in body[k + 1:]]
        lines[member.start: member.end + 1] = body
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- mlir-opt

def mlir_opt() -> str | None:
    return find_mlir_opt(19)


def run_mlir_opt(texts: Sequence[str], passes: Sequence[str] = (),
                 timeout_s: float = 120.0) -> list[str]:
    """Each text through one `mlir-opt-19 --split-input-file` process (with
    `passes`), printed back in generic form with locations.  Raises
    `RewriteError` naming the text mlir-opt rejects."""
    tool = mlir_opt()
    if tool is None:
        raise RuntimeError("mlir-opt-19 not installed")
    if not texts:
        return []
    cmd = [tool, "--split-input-file", *passes, *PRINT_FLAGS, "-"]
    joined = f"\n{SPLIT}\n".join(t.rstrip("\n") for t in texts) + "\n"
    proc = subprocess.run(cmd, input=joined, capture_output=True, text=True, timeout=timeout_s)
    chunks = proc.stdout.split(f"\n{SPLIT}\n")
    if proc.returncode == 0 and len(chunks) == len(texts):
        return [_clean(c) for c in chunks]
    if len(texts) == 1:
        raise RewriteError(f"mlir-opt-19 {' '.join(passes)} rejects a rewritten module "
                           f"(exit {proc.returncode}):\n{proc.stderr.strip()}\n--- input:\n"
                           f"{texts[0]}")
    mid = len(texts) // 2
    return run_mlir_opt(texts[:mid], passes, timeout_s) + run_mlir_opt(texts[mid:], passes,
                                                                        timeout_s)


def _clean(chunk: str) -> str:
    body = chunk.strip()
    if body.startswith(SPLIT):
        body = body[len(SPLIT):].strip()
    return body + "\n"


def roundtrip(texts: Sequence[str]) -> list[str]:
    return run_mlir_opt(texts)


def scf_to_cf(texts: Sequence[str]) -> list[str]:
    return run_mlir_opt(texts, ["--convert-scf-to-cf"])


# ---------------------------------------------------------------- registry

TextRewrite = Callable[[str], str]
BatchRewrite = Callable[[Sequence[str]], list[str]]


def _per_text(f: TextRewrite) -> BatchRewrite:
    return lambda texts: [f(t) for t in texts]


def _chain(*steps: BatchRewrite) -> BatchRewrite:
    def run(texts: Sequence[str]) -> list[str]:
        out = list(texts)
        for step in steps:
            out = roundtrip(step(out))
        return out
    return run


# name -> batch rewrite; each result is then printed back by `roundtrip`.
REWRITES: dict[str, BatchRewrite] = {
    "identity": lambda texts: list(texts),
    "handle-via-memory": _per_text(handle_via_memory),
    "handle-via-memory-per-use": _per_text(handle_via_memory_per_use),
    "outline-calls": _per_text(outline_calls),
    "scf-to-cf": scf_to_cf,
    "select-const": _per_text(select_const),
    "scf-to-cf+memory+outline": _chain(scf_to_cf, _per_text(handle_via_memory_per_use),
                                       _per_text(outline_calls)),
}


def apply(name: str, texts: Sequence[str]) -> list[str]:
    """Rewrite each lowered module with `name` and print it back in generic
    form with locations (one mlir-opt-19 process per step for the batch)."""
    return roundtrip(REWRITES[name](texts))
