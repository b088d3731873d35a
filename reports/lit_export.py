"""A violation as a lit test: the shrunk source plus FileCheck lines.

The test fails on the buggy lowering and passes once it is fixed.  Its
checks come from the source program (which allocs are sync or host_shared)
and from the buggy lowered text in the record (which stream leaked, which
call used a destroyed stream); a lowered call is tied to its source op by
`loc("opN")`, so runs that need it add `--mlir-print-debuginfo
--mlir-print-local-scope`.  Two kinds of run:

- a property, `| FileCheck`: e.g. no `mgpuStreamCreate` at a sync alloc's
  loc, the alloc call takes the `1 : i8` constant, no `gpu.*` op is left;
- a bug pattern, `| not FileCheck`: e.g. "a stream created at op0 and no
  destroy of it up to the next function".  It passes once the pattern is
  gone, also for a fix that creates no stream at all; a plain run with the
  functions' labels rules out an empty or garbled output.

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

from reports.irtext import (
    Call,
    Source,
    counterexample,
    marked_ops,
    parse_calls,
    parse_source,
)
from verify.errors import EnvironmentProblem
from verify.verdicts import INVARIANTS

Record = dict[str, Any]
LOC_FLAGS = "--mlir-print-debuginfo --mlir-print-local-scope"
VAR = "[0-9a-zA-Z_]+"  # an SSA name without its '%', as FileCheck captures it
# An upper-case word before ':' could read as a lit or FileCheck directive.
_DIRECTIVE_LIKE = re.compile(r"([A-Z][A-Z0-9_]*(?:-[A-Z0-9]+)*)(:|(?<=END)\.)")


@dataclass
class Group:
    """Check lines (without prefix) that one FileCheck run verifies, per function."""

    name: str
    lines: dict[str, list[str]] = field(default_factory=dict)  # function -> lines
    preamble: list[str] = field(default_factory=list)  # before the first label
    # A bug pattern: the test runs `not FileCheck`, so it passes once nothing matches
    # (e.g. "a stream created at op0 and no destroy of it": a fix that creates no
    # stream at all passes too).
    negate: bool = False

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
    """Per offending create: "created, never destroyed" or "destroyed twice", negated."""
    create, destroy = _resource_names(str(ctx.record.get("invariant", "")))
    creates = [c for c in ctx.calls if c.callee == create and c.result]

    def destroys(c: Call) -> int:
        return sum(1 for d in ctx.calls
                   if d.callee == destroy and d.func == c.func and c.result in d.operands)

    cex = counterexample(ctx.record)
    source_op = cex.get("source_op")
    chosen = [c for c in creates if c.loc == source_op] or \
        [c for c in creates if c.loc in ctx.marked and destroys(c) != 1]
    if not chosen:
        awaited = ctx.src.awaited_tokens()

        def must_destroy(c: Call) -> bool:
            op = ctx.src.by_id(c.loc) if c.loc else None
            return op is None or op.token is None or op.token in awaited

        chosen = [c for c in creates if destroys(c) != 1 and must_destroy(c)]
    if not chosen:
        chosen = [c for c in creates if c.loc in ctx.marked] or creates
    groups = []
    for call in chosen:
        n = destroys(call)
        if n == 1:  # textually fine: the count differs on some path only
            n = cex.get("destroy_count", 0) if isinstance(cex.get("destroy_count"), int) else 0
            ctx.notes.append(f"the {create} from {call.loc or '?'} has one {destroy} in the "
                             "text; the count differs on the counterexample's path only, so "
                             "this textual check may pass on the buggy lowering")
        g = Group("LEAK" if n == 0 else "TWICE", negate=True)
        tail = ([f"-NOT: llvm.call @{destroy}(%[[R]])"] if n == 0 else
                [f"llvm.call @{destroy}(%[[R]])", f"llvm.call @{destroy}(%[[R]])"])
        g.add(ctx.func_of(call), *_create_pattern(ctx, call, "R", create), *tail)
        groups.append(g)
    return groups


def _checks_use_after_destroy(ctx: Ctx) -> list[Group]:
    groups = []
    for create, destroy in (("mgpuStreamCreate", "mgpuStreamDestroy"),
                            ("mgpuEventCreate", "mgpuEventDestroy")):
        handle_from = counterexample(ctx.record).get("handle_from")
        for call in (c for c in ctx.calls if c.callee == create and c.result):
            if handle_from and call.loc != handle_from:
                continue
            uses = [c for c in ctx.calls if c.func == call.func and call.result in c.operands]
            first = next((i for i, c in enumerate(uses) if c.callee == destroy), None)
            if first is None or first == len(uses) - 1:
                continue
            g = Group("UAD", negate=True)
            g.add(ctx.func_of(call), *_create_pattern(ctx, call, "R", create),
                  f"llvm.call @{destroy}(%[[R]])", "%[[R]]{{[,): ]}}")
            groups.append(g)
    return groups or _checks_regression(ctx)


def _checks_sync_alloc(ctx: Ctx) -> list[Group]:
    """No create at a sync alloc's loc; its alloc call takes no created stream either."""
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
    groups = [g]
    # A sync alloc handed a stream created elsewhere: mgpuMemAlloc(size, stream, flag).
    made = {(c.func, c.result): c for c in ctx.calls if c.callee == "mgpuStreamCreate"}
    for call in ctx.calls:
        op = ctx.src.by_id(call.loc) if call.loc else None
        if (op is not None and op in allocs and call.callee == "mgpuMemAlloc"
                and len(call.operands) >= 2 and (call.func, call.operands[1]) in made):
            h = Group("BORROW", negate=True)
            h.add(op.func, *_create_pattern(ctx, made[(call.func, call.operands[1])], "S",
                                            "mgpuStreamCreate"),
                  f"llvm.call @mgpuMemAlloc(%{{{{{VAR}}}}}, %[[S]]{{{{[,)]}}}}"
                  f"{ctx.loc_pat(op.id)}")
            groups.append(h)
    return groups


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
    # After each function's label, to the next label (the last: to the end of the
    # module, declarations included).
    g = Group("DONE")
    nots = ['-NOT: {{[ "!]gpu\\.[a-z_]+}}', "-NOT: unrealized_conversion_cast"]
    if not ctx.src.functions:
        g.preamble = nots
    for func in ctx.src.functions:
        g.add(func, *nots)
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


def _prefixes(groups: list[Group]) -> list[str]:
    """CHECK for a lone positive group; otherwise the group's name, numbered if shared."""
    if sum(1 for g in groups if not g.negate) == 1:
        named = {id(next(g for g in groups if not g.negate)): "CHECK"}
    else:
        named = {}
    out = []
    for g in groups:
        if id(g) in named:
            out.append(named[id(g)])
            continue
        same = [h for h in groups if h.name == g.name and id(h) not in named]
        k = next(i for i, h in enumerate(same) if h is g)
        out.append(g.name if len(same) == 1 else f"{g.name}{k}")
    return out


def reproducer_text(violation: Record, tool: str = "mlir-opt") -> str:
    """The lit test for one violation record (see the module docstring)."""
    program = str(violation.get("program") or "")
    invariant = str(violation.get("invariant") or "")
    pipeline = str(violation.get("pipeline") or "gpu-to-llvm")
    cex = counterexample(violation)
    marked = marked_ops(violation)
    ctx = Ctx(violation, parse_source(program), parse_calls(str(violation.get("lowered") or "")),
              marked)
    groups = BUILDERS.get(invariant, _checks_regression)(ctx)
    if not any(not g.negate for g in groups):
        # The output must still hold every function: a `not FileCheck` alone would
        # also pass on an empty or garbled output.
        groups.insert(0, Group("CHECK"))
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
    if str(violation.get("lowering", "")).startswith("xdsl:"):
        ctx.notes.append("found on an in-process model of an upstream revision; the RUN line "
                         "checks whichever mlir-opt lit.cfg.py names")
    if any(g.negate for g in groups):
        ctx.notes.append("a run through `not FileCheck` describes the bug: it passes once "
                         "the lowered code no longer matches it")
    header += [f"// NOTE: {_one_line(n)}" for n in ctx.notes]
    header.append("")
    quoted = shlex.quote(f"builtin.module({pipeline})")
    body: list[str] = []
    for g, prefix in zip(groups, _prefixes(groups), strict=True):
        flags = f" {LOC_FLAGS}" if g.uses_loc() else ""
        pfx = "" if prefix == "CHECK" else f" --check-prefix={prefix}"
        filecheck = "not FileCheck" if g.negate else "FileCheck"
        header.append(f"// RUN: {tool} %s --pass-pipeline={quoted}{flags} | "
                      f"{filecheck} %s{pfx}")
        body += [""] + _render_group(prefix, g, ctx.src.functions)
    return "\n".join(header + body) + "\n\n" + program.rstrip() + "\n"


def _file_name(violation: Record) -> str:
    stem = str(violation.get("id") or
               f"{violation.get('invariant', 'violation')}-{violation.get('lowering', '')}")
    return (re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") or "violation") + ".mlir"


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
