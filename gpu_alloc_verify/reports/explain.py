"""Counterexamples in the style of Alive2: the rule broken in one sentence,
the source, the lowered code in custom form with the calls on the offending
handle marked (each with its source position), the path (branch values) or
schedule that shows it, and the one command that reproduces it."""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.reports.pretty_ir import IrLine, shown_ir
from gpu_alloc_verify.verify.invariants.common import describe_path
from gpu_alloc_verify.verify.lowerings.failure_kind import CONFIRMED_BY_TOOL
from gpu_alloc_verify.verify.model.verdicts import INVARIANTS

_KEEP = ("llvm.call", "gpu.", "unrealized_conversion_cast", "scf.", "cf.", "llvm.func",
         "llvm.br", "llvm.cond_br", "llvm.return", "^bb", "module")


def _relevant(line: IrLine) -> bool:
    stripped = line.text.strip()
    return line.mark or stripped.startswith("}") or any(k in stripped for k in _KEEP)


def lowered_lines(record: dict[str, Any], max_lowered: int = 200,
                  program_name: str = "program") -> tuple[list[str], bool]:
    """The lowered host code for a terminal: runtime calls, control flow and what
    is left of the gpu dialect; other IR elided as `...`; runtime declarations
    and device code left out.  Also whether it is in custom form."""
    shown = shown_ir(record, program_name)
    out: list[str] = []
    elided = kernel = 0
    for line in shown.lines:
        if line.declaration:
            continue
        if line.kernel:
            kernel += 1
            continue
        if kernel:
            out.append(f"     ... ({kernel} line(s) of device code in gpu.module)")
            kernel = 0
        if not _relevant(line):
            elided += 1
            continue
        if elided:
            out.append("     ...")
            elided = 0
        if line.mark:
            where = f"{line.op} at {line.where}" if line.op and line.op != line.where \
                else line.where
            out.append(f"  >> {line.text.rstrip()}    <- {where}")
        else:
            out.append(f"     {line.text.rstrip()}")
    return out[:max_lowered], shown.custom


def render(record: dict[str, Any], max_lowered: int = 200, repro: str | None = None,
           program_name: str = "program", head: list[str] | None = None) -> str:
    """A violation record (as in `--json` output) as text for people; `repro`:
    the command that reproduces it; `head`: lines said in place of the
    `ERROR:` heading, rule, detail, confirmation and command (`check`'s
    diagnostics, `reports.diagnostics`)."""
    inv = record["invariant"]
    cex = record.get("counterexample") or {}
    vid = record.get("id")
    lines = list(head) if head is not None else [
        f"ERROR: {inv} violated on {record['lowering']}" + (f"  [{vid}]" if vid else ""),
        f"  rule: {INVARIANTS.get(inv, inv)}",
        f"  {record['detail']}"]
    if record.get("confirmation") and head is None:
        # Most are execution's word; an invalid-IR one is the tool's own error.
        label = "tool" if record["confirmation"].startswith(CONFIRMED_BY_TOOL) else "execution"
        lines.append(f"  {label}: {record['confirmation']}")
    if repro and head is None:
        lines.append(f"  reproduce: {repro}")
    lines += ["", "Source:" if program_name == "program" else f"Source: {program_name}"]
    src = record["program"].rstrip().splitlines()
    width = len(str(len(src)))
    lines += [f"  {n:>{width}} | {ln}" for n, ln in enumerate(src, 1)]
    if record.get("lowered"):
        shown, custom = lowered_lines(record, max_lowered, program_name)
        form = "custom form" if custom else "generic form: the lowering's tool is not here"
        lines += ["", f"Lowered by {record['lowering']} ({form}; >> marks the runtime calls "
                  "on the offending handle, <- their source op):"]
        lines += shown
    if "path" in cex and cex["path"]:
        lines += ["", f"Path: {describe_path(cex['path'])}"]
    schedule = cex.get("schedule")
    if isinstance(schedule, list) and schedule:
        lines += ["Schedule (what the device ran, in time order):"]
        lines += ["  " + str(s) for s in schedule]
    elif isinstance(schedule, int) and not isinstance(schedule, bool):  # differential's seed
        lines += [f"Schedule: {cex.get('schedule_name') or f'seed {schedule}'}"]
    if cex.get("observables"):  # differential: what differs, Alive2-style
        lines += ["", "Observables that differ (source semantics vs lowered run):"]
        for o in cex["observables"]:
            lines += [f"  {o['observable']}", f"    source:  {o['source']}",
                      f"    lowered: {o['lowered']}"]
    return "\n".join(lines) + "\n"


def mark_lowered(lowered: str, marked: list[str]) -> list[str]:
    """Lowered lines of the given source ops, marked '>>' (kept for callers of
    the old interface; `render` marks the offending handle's calls only)."""
    from gpu_alloc_verify.verify.ir.locations import id_on_line

    wanted = set(marked)
    return [(">> " if id_on_line(ln) in wanted else "   ") + ln
            for ln in lowered.rstrip().splitlines()]
