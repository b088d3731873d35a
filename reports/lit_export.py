"""A violation as a lit test: the shrunk source plus FileCheck lines.

The checks state the violated invariant about the lowered code, so the test
fails on the buggy lowering and passes once it is fixed.  They are derived
from the source program (which ops are sync, host_shared, ...) and from the
buggy lowered text in the record (which stream leaked, which call used a
destroyed stream), and they tie a lowered call to its source op by its
`loc("opN")`; such tests run `mlir-opt` with `--mlir-print-debuginfo
--mlir-print-local-scope` so the locations reach FileCheck.

Soundness is per straight-line program: the checks are textual, so for a
program with branches or loops a counterexample that needs one particular
path may not make the test fail (the file says so in a NOTE).
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.errors import EnvironmentProblem
from verify.verdicts import INVARIANTS

Record = dict[str, Any]
LOC_FLAGS = "--mlir-print-debuginfo --mlir-print-local-scope"
VAR = "[0-9a-zA-Z_]+"  # an SSA name without its '%', as FileCheck captures it
_LOC_RE = re.compile(r'loc\("([^"]+)"\)')
_FUNC_RE = re.compile(r'(?:(?:llvm|func)\.func\b[^@\n]*@([\w$.]+)|sym_name = "([\w$.]+)")')
_GENERIC_CALL = re.compile(
    r'^\s*(?:(%[\w$.#:]+)\s*=\s*)?"llvm\.call"\(([^)]*)\).*?callee = @([\w$.]+)')
_CUSTOM_CALL = re.compile(r"^\s*(?:(%[\w$.#:]+)\s*=\s*)?llvm\.call @([\w$.]+)\(([^)]*)\)")
_SRC_OP = re.compile(r"^\s*(?:(%[^=]+?)\s*=\s*)?(gpu\.\w+)(.*)$")
# An upper-case word before ':' could read as a lit or FileCheck directive.
_DIRECTIVE_LIKE = re.compile(r"([A-Z][A-Z0-9_]*(?:-[A-Z0-9]+)*)(:|(?<=END)\.)")


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


@dataclass
class Group:
    """Check lines (without prefix) that one FileCheck run verifies, per function."""

    name: str
    lines: dict[str, list[str]] = field(default_factory=dict)  # function -> lines
    preamble: list[str] = field(default_factory=list)  # before the first label

    def add(self, func: str, *lines: str) -> None:
        self.lines.setdefault(func, []).extend(lines)

    def uses_loc(self) -> bool:
        return any('loc("' in ln for ls in self.lines.values() for ln in ls)


@dataclass
class Ctx:
    record: Record
    src: Source
    calls: list[Call]
    marked: set[str]
    notes: list[str] = field(default_factory=list)

    def loc_pat(self, op_id: str | None) -> str:
        """`{{.*}}loc("opN")` as the source spells it (a prefix such as "p0/" kept)."""
        op = self.src.by_id(op_id) if op_id else None
        loc = op.loc if op and op.loc else op_id
        return f'{{{{.*}}}}loc("{loc}")' if loc else ""

    def func_of(self, call: Call) -> str:
        op = self.src.by_id(call.loc) if call.loc else None
        if op:
            return op.func
        return call.func if call.func in self.src.functions else self._first_func()

    def _first_func(self) -> str:
        return self.src.functions[0] if self.src.functions else ""


def _resource_names(invariant: str) -> tuple[str, str]:
    if invariant == "event-no-leak":
        return "mgpuEventCreate", "mgpuEventDestroy"
    return "mgpuStreamCreate", "mgpuStreamDestroy"


def _create_pattern(ctx: Ctx, call: Call, var: str, create: str) -> list[str]:
    if call.loc:
        return [f"%[[{var}:{VAR}]] = llvm.call @{create}(){ctx.loc_pat(call.loc)}"]
    before = sum(1 for c in ctx.calls
                 if c.callee == create and c.func == call.func and c.index < call.index)
    lines = [f"-COUNT-{before}: llvm.call @{create}()"] if before else []
    return lines + [f"%[[{var}:{VAR}]] = llvm.call @{create}()"]


def _checks_no_leak(ctx: Ctx) -> list[Group]:
    inv = ctx.record.get("invariant", "")
    create, destroy = _resource_names(inv)
    destroyed = {(c.func, o) for c in ctx.calls if c.callee == destroy for o in c.operands}
    creates = [c for c in ctx.calls if c.callee == create and c.result]
    leaked = [c for c in creates if (c.func, c.result) not in destroyed]
    chosen = [c for c in leaked if c.loc in ctx.marked]
    if not chosen:
        awaited = ctx.src.awaited_tokens()

        def must_destroy(c: Call) -> bool:
            op = ctx.src.by_id(c.loc) if c.loc else None
            return op is None or op.token is None or op.token in awaited

        chosen = [c for c in leaked if must_destroy(c)] or leaked
    if not chosen:
        chosen = [c for c in creates if c.loc in ctx.marked] or creates
        ctx.notes.append(f"every {create} in the buggy output has a {destroy} somewhere; "
                         "the leak is path-dependent, so this textual check may pass on it")
    groups = []
    for k, call in enumerate(chosen):
        g = Group("STREAM" if create == "mgpuStreamCreate" else "EVENT")
        g.add(ctx.func_of(call), *_create_pattern(ctx, call, f"R{k}", create),
              f"llvm.call @{destroy}(%[[R{k}]])")
        groups.append(g)
    return groups


def _checks_use_after_destroy(ctx: Ctx) -> list[Group]:
    groups = []
    for create, destroy in (("mgpuStreamCreate", "mgpuStreamDestroy"),
                            ("mgpuEventCreate", "mgpuEventDestroy")):
        for call in (c for c in ctx.calls if c.callee == create and c.result):
            uses = [c for c in ctx.calls if c.func == call.func and call.result in c.operands]
            first = next((i for i, c in enumerate(uses) if c.callee == destroy), None)
            if first is None or first == len(uses) - 1:
                continue
            k = len(groups)
            g = Group("USE")
            g.add(ctx.func_of(call), *_create_pattern(ctx, call, f"R{k}", create),
                  f"llvm.call @{destroy}(%[[R{k}]])", f"-NOT: %[[R{k}]]{{{{[,): ]}}}}")
            groups.append(g)
    return groups or _checks_regression(ctx)


def _checks_sync_alloc(ctx: Ctx) -> list[Group]:
    allocs = [op for op in ctx.src.ops if op.name == "gpu.alloc" and not op.is_async]
    allocs = [op for op in allocs if op.id in ctx.marked] or allocs
    g = Group("NOSTREAM")
    for func in ctx.src.functions:
        has_async = any(op.is_async for op in ctx.src.ops if op.func == func)
        mine = [op for op in allocs if op.func == func]
        if mine and not has_async:
            g.add(func, "-NOT: llvm.call @mgpuStreamCreate")
        else:
            g.add(func, *(f"-NOT: llvm.call @mgpuStreamCreate(){ctx.loc_pat(op.id)}"
                          for op in mine if op.loc))
    return [g]


def _flag_value(lowered_lines: list[str], call: Call) -> str | None:
    if not call.operands:
        return None
    name = re.escape(call.operands[-1])
    for line in lowered_lines:
        if re.match(rf"\s*{name}\s*=", line) and "llvm.mlir.constant" in line:
            m = re.search(r"(?:value = |constant\()(-?\d+|true|false) : i8", line)
            return m.group(1) if m else None
    return None


def _checks_host_shared(ctx: Ctx) -> list[Group]:
    allocs = [op for op in ctx.src.ops if op.name == "gpu.alloc" and op.loc]
    chosen = [op for op in allocs if op.id in ctx.marked]
    if not chosen:
        lines = str(ctx.record.get("lowered", "")).splitlines()
        for op in allocs:
            call = next((c for c in ctx.calls if c.loc == op.id
                         and c.callee.startswith("mgpuMemAlloc")), None)
            if call is None or _flag_value(lines, call) != str(int(op.host_shared)):
                chosen.append(op)
    g = Group("FLAG")
    for k, op in enumerate(chosen or allocs):
        loc = ctx.loc_pat(op.id)
        flag = int(op.host_shared)
        g.add(op.func, f"%[[F{k}:{VAR}]] = llvm.mlir.constant({flag} : i8) : i8{loc}",
              f"llvm.call @mgpuMemAlloc{{{{(Async)?}}}}({{{{.*}}}}%[[F{k}]]){loc}")
    return [g]


def _checks_complete(ctx: Ctx) -> list[Group]:
    g = Group("DONE")
    g.preamble = ['-NOT: {{[ "!]gpu\\.[a-z_]+}}', "-NOT: unrealized_conversion_cast"]
    for func in ctx.src.functions:
        g.add(func, *g.preamble)
    return [g]


def _checks_no_crash(ctx: Ctx) -> list[Group]:
    ctx.notes.append("the RUN line fails if mlir-opt crashes, asserts or exits non-zero; "
                     "for a hang run lit with --timeout")
    return [Group("OK")]


def _checks_regression(ctx: Ctx) -> list[Group]:
    """No textual form of the invariant: forbid the exact buggy calls (a weak check)."""
    g = Group("CHECK")
    for call in ctx.calls:
        if call.loc in ctx.marked:
            lhs = f"{call.result} = " if call.result else ""
            g.add(ctx.func_of(call), f"-NOT: {lhs}llvm.call @{call.callee}"
                  f"({', '.join(call.operands)}){ctx.loc_pat(call.loc)}")
    ctx.notes.append("this invariant has no textual form: the checks forbid the exact calls the "
                     "buggy lowering emitted (a regression check, not a proof)"
                     if g.lines else "no textual check could be derived: rerun "
                     "`gpu-alloc-verify check` on this file")
    return [g]


BUILDERS: dict[str, Callable[[Ctx], list[Group]]] = {
    "stream-no-leak": _checks_no_leak,
    "event-no-leak": _checks_no_leak,
    "stream-no-use-after-destroy": _checks_use_after_destroy,
    "sync-alloc-no-stream": _checks_sync_alloc,
    "host-shared-flag": _checks_host_shared,
    "lowering-complete": _checks_complete,
    "lowering-no-crash": _checks_no_crash,
}


def _one_line(text: Any) -> str:
    return _DIRECTIVE_LIKE.sub(r"\1 \2", " ".join(str(text).split()))


def _render_group(prefix: str, g: Group, functions: list[str]) -> list[str]:
    def line(body: str) -> str:
        # A body starting with "-" carries its own directive suffix ("-NOT: ...").
        return f"// {prefix}{body}" if body.startswith("-") else f"// {prefix}: {body}"

    out = [line(b) for b in g.preamble]
    for func in functions:
        out.append(line(f"-LABEL: @{func}("))
        out.extend(line(b) for b in g.lines.get(func, []))
    for func, lines in g.lines.items():  # a function the source does not name
        if func not in functions:
            out.extend(line(b) for b in lines)
    return out


def reproducer_text(violation: Record, tool: str = "mlir-opt") -> str:
    """The lit test for one violation record (see the module docstring)."""
    program = str(violation.get("program") or "")
    invariant = str(violation.get("invariant") or "")
    pipeline = str(violation.get("pipeline") or "gpu-to-llvm")
    cex = violation.get("counterexample") if isinstance(violation.get("counterexample"), dict) \
        else {}
    marked = {str(m) for m in violation.get("marked_calls") or [] if m}
    if cex.get("source_op"):
        marked.add(str(cex["source_op"]))
    ctx = Ctx(violation, parse_source(program), parse_calls(str(violation.get("lowered") or "")),
              marked)
    groups = BUILDERS.get(invariant, _checks_regression)(ctx)
    if not groups:
        groups = [Group("CHECK")]
    header = [
        f"// Reproducer for {_one_line(violation.get('id', ''))} (gpu-alloc-verify).",
        f"// Invariant {_one_line(invariant)}: {_one_line(INVARIANTS.get(invariant, '?'))}",
        f"// Lowering {_one_line(violation.get('lowering', '?'))}, pipeline "
        f"{_one_line(pipeline)}.",
        f"// {_one_line(violation.get('detail', ''))}",
    ]
    path = cex.get("path")
    if isinstance(path, dict) and path:
        header.append("// Path: " + _one_line(", ".join(f"{k} = {str(v).lower()}"
                                                         for k, v in path.items())))
    schedule = cex.get("schedule")
    if isinstance(schedule, list) and schedule:
        header.append("// Schedule: " + _one_line("; ".join(map(str, schedule))))
    if ctx.src.branches:
        ctx.notes.append("the program branches or loops; the checks are textual and do not "
                         "select the counterexample's path")
    header += [f"// NOTE: {_one_line(n)}" for n in ctx.notes]
    header.append("")
    quoted = shlex.quote(f"builtin.module({pipeline})")
    body: list[str] = []
    for k, g in enumerate(groups):
        prefix = "CHECK" if len(groups) == 1 else f"{g.name}{k}"
        flags = f" {LOC_FLAGS}" if g.uses_loc() else ""
        pfx = "" if prefix == "CHECK" else f" --check-prefix={prefix}"
        header.append(f"// RUN: {tool} %s --pass-pipeline={quoted}{flags} | FileCheck %s{pfx}")
        body += [""] + _render_group(prefix, g, ctx.src.functions)
    return "\n".join(header + body) + "\n\n" + program.rstrip() + "\n"


def _file_name(violation: Record) -> str:
    stem = str(violation.get("id") or
               f"{violation.get('invariant', 'violation')}-{violation.get('lowering', '')}")
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") + ".mlir"


def export_lit(violation: Record, out_dir: str | Path) -> Path:
    """Write the violation's lit test into out_dir (created) and return its path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / _file_name(violation)
    path.write_text(reproducer_text(violation), encoding="utf-8")
    return path


def find_filecheck() -> str | None:
    """LLVM's FileCheck (plain, versioned, or under /usr/lib/llvm-*), else Python `filecheck`."""
    found = shutil.which("FileCheck")
    if found:
        return found
    for v in range(30, 9, -1):
        found = shutil.which(f"FileCheck-{v}")
        if found:
            return found
    for cand in sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), reverse=True):
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("filecheck")


_LIT_CFG = '''\
# lit configuration written by gpu-alloc-verify (reports/lit_export.py).
# Run: lit -v {dir}
import os

import lit.formats

config.name = "gpu-alloc-verify-reproducers"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root
MLIR_OPT = os.environ.get("GPU_ALLOC_VERIFY_MLIR_OPT", {mlir_opt!r})
FILECHECK = os.environ.get("GPU_ALLOC_VERIFY_FILECHECK", {filecheck!r})


def _tool(pattern, path):
    return (r"(?<![\\w./-])" + pattern + r"(?![\\w./-])", path.replace("\\\\", "\\\\\\\\"))


config.substitutions.append(_tool("mlir-opt", MLIR_OPT))
config.substitutions.append(_tool("FileCheck", FILECHECK))
'''


def write_lit_config(directory: str | Path, mlir_opt_path: str,
                     filecheck: str | None = None) -> Path:
    """Write directory/lit.cfg.py: `mlir-opt` and `FileCheck` become the given tools.

    Environment variables GPU_ALLOC_VERIFY_MLIR_OPT / GPU_ALLOC_VERIFY_FILECHECK
    override the paths when lit runs.
    """
    filecheck = filecheck or find_filecheck()
    if filecheck is None:
        raise EnvironmentProblem(
            "no FileCheck found: install LLVM's (apt-get install llvm-19-tools) "
            "or the Python port (pip install filecheck)")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / "lit.cfg.py"
    path.write_text(_LIT_CFG.format(dir=d, mlir_opt=shlex.quote(str(mlir_opt_path)),
                                    filecheck=shlex.quote(filecheck)), encoding="utf-8")
    return path
