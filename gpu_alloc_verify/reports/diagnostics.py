"""A violation as compilers print a diagnostic: `file:line:col: error:
<invariant>: <message>` first, then `note:` lines, the form `mlir-opt`,
FileCheck and compute-sanitizer print and that editors and CI problem
matchers read.

The error is placed at the source op the violation is about (its roles:
the creator of a leaked handle, the op left unconverted...), else at the
first offending call's op, else at the function a differential run called;
where none is known, `file: error: ...` (still a line editors read).  The
notes: the rule, each runtime call on the offending handle (at its source
op), the path and schedule that show it, what execution said, and the
command that reproduces it.
"""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.reports.pretty_ir import shown_ir, source_position
from gpu_alloc_verify.verify.invariants.common import describe_path
from gpu_alloc_verify.verify.ir.ir_lines import parse_calls
from gpu_alloc_verify.verify.ir.locations import split_file_key
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import rule_of

Record = dict[str, Any]
# The roles naming the op a violation is about, most telling first.
_ROLES = ("source_op", "error_at", "later", "use_from", "destroy_from", "handle_from",
          "earlier")


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _at(program: str, key: str | None, file: str) -> str | None:
    """`file:line:col` of a source op key, None where the text has no such op."""
    if not key:
        return None
    where = source_position(program, key, file)
    return where if split_file_key(where) is not None else None


def _function_at(program: str, function: object, file: str) -> str | None:
    """Where `func.func @function` is defined in the program."""
    if not isinstance(function, str) or not function:
        return None
    for n, line in enumerate(program.splitlines(), 1):
        col = line.find(f"@{function}(")
        if col >= 0 and "func.func" in line[:col]:
            return f"{file}:{n}:{line.index('func.func') + 1}"
    return None


def position(record: Record, file: str) -> str | None:
    """Where the violation is in the user's file (`file:line:col`), or None."""
    program = str(record.get("program") or "")
    roles = Roles.of(record)
    for role in _ROLES:
        where = _at(program, getattr(roles, role), file)
        if where is not None:
            return where
    marked = record.get("marked_calls")
    for key in marked if isinstance(marked, list) else []:
        where = _at(program, str(key), file)
        if where is not None:
            return where
    cex = record.get("counterexample")
    return _function_at(program, cex.get("function") if isinstance(cex, dict) else None, file)


def _call_notes(record: Record, file: str) -> list[str]:
    """A note per runtime call on the offending handle, at its source op."""
    if not record.get("lowered"):
        return []
    out = []
    for line in shown_ir(record, file).lines:
        if not line.mark:
            continue
        calls = parse_calls(line.text)
        said = (f"lowered to `llvm.call @{calls[0].callee}({', '.join(calls[0].operands)})`"
                if calls else f"left unconverted: `{line.text.strip()}`")
        out.append(f"{line.where or file}: note: {said} by {record['lowering']}")
    return out


def diagnostic_lines(record: Record, file: str, repro: str | None = None) -> list[str]:
    """The violation record (`check --json` shape) of `file` as diagnostics."""
    inv = str(record["invariant"])
    where = position(record, file) or file
    vid = record.get("id")
    tag = f" [{record['lowering']}" + (f", {vid}]" if vid else "]")
    lines = [f"{where}: error: {inv}: {_one_line(record['detail'])}{tag}",
             f"{where}: note: the rule: {rule_of(inv) or inv}"]
    lines += _call_notes(record, file)
    cex = record.get("counterexample") or {}
    if isinstance(cex.get("path"), dict) and cex["path"]:
        lines.append(f"{file}: note: on the path taken {describe_path(cex['path'])}")
    schedule = cex.get("schedule")
    if isinstance(schedule, list) and schedule:
        lines.append(f"{file}: note: schedule (what the device ran, in time order): "
                     + "; ".join(str(s) for s in schedule))
    if record.get("confirmation"):
        lines.append(f"{file}: note: {_one_line(record['confirmation'])}")
    if repro:
        lines.append(f"{file}: note: reproduce: {repro}")
    return lines

