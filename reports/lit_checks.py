"""FileCheck lines that pin a defect, in the custom form `mlir-opt` prints.

Each builder reads the violation (the offending handle and source ops, from
`verify.triage.offending`) and the custom-form outputs of the buggy and of the
fixed lowering, both printed with locations so that a lowered call is tied
to its source op; the lines it writes carry no location.  A plan is a list of
directives per function; the defect directives are those the fixed lowering
satisfies and the buggy one does not.  Builders return candidates, best
first; `reports.lit_proof` keeps the first one it can prove.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from verify.ir.ir_lines import Call, parse_calls, parse_residue, parse_source
from verify.triage.offending import CREATES, DESTROYS, offense
from verify.triage.signature import op_form

Record = dict[str, Any]
VAR = "[0-9a-zA-Z_]+"  # an SSA name without its '%', as FileCheck captures it
_DESTROY_FROM = re.compile(r"\bdestroy(?:ed)? (?:from|by) (\S+?)[ ,)]")


@dataclass
class Directive:
    kind: str  # "" (CHECK), "NOT"
    pattern: str
    defect: bool = False
    comment: str = ""  # a comment line written above it

    def negated(self) -> Directive:
        return Directive("" if self.kind == "NOT" else "NOT", self.pattern, self.defect)


@dataclass
class Plan:
    name: str
    lines: dict[str, list[Directive]] = field(default_factory=dict)  # function -> lines

    def add(self, func: str, *ds: Directive) -> Plan:
        self.lines.setdefault(func, []).extend(ds)
        return self

    def has_defect(self) -> bool:
        return any(d.defect for ds in self.lines.values() for d in ds)


def _ordinal(calls: list[Call], target: Call) -> list[Directive]:
    """Lines that step over the calls to the same function before `target`."""
    before = [c for c in calls if c.func == target.func and c.callee == target.callee
              and c.index < target.index]
    return [Directive("", f"llvm.call @{target.callee}(") for _ in before]


def _call_at(calls: list[Call], callee: str, loc: str | None) -> Call | None:
    return next((c for c in calls if c.callee == callee and c.loc == loc and loc), None)


def _form(program: str, op_id: str | None) -> str:
    return op_form(parse_source(program).by_id(op_id)) if op_id else "?"


def leak_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    kind = "event" if record.get("invariant") == "event-no-leak" else "stream"
    off = offense(record)
    return [p for p in (_leak(kind, off.creator, ref, record, name)
                        for ref, name in ((fixed, "leak (fixed)"), (buggy, "leak (buggy)"))
                        if ref is not None) if p is not None]


def _leak(kind: str, creator: str | None, ref: str, record: Record, name: str) -> Plan | None:
    calls = parse_calls(ref)
    create = _call_at(calls, CREATES[kind], creator)
    if create is None:
        return None
    form = _form(str(record.get("program") or ""), creator)
    return Plan(name).add(create.func, *_ordinal(calls, create),
                          Directive("", f"%[[H:{VAR}]] = llvm.call @{CREATES[kind]}()"),
                          Directive("", f"llvm.call @{DESTROYS[kind]}(%[[H]])", True,
                                    f"The {kind} created for `{form}` is destroyed:"))


def leak_scan_plans(kind: str, buggy: str, fixed: str | None, record: Record) -> list[Plan]:
    """For a differential outcome (a live stream or event at exit): each create
    of the buggy output whose handle is never destroyed."""
    calls = parse_calls(buggy)
    out = []
    for c in calls:
        if c.callee != CREATES[kind] or not c.result:
            continue
        if any(d.callee == DESTROYS[kind] and d.func == c.func and c.result in d.operands
               for d in calls):
            continue
        for ref, name in ((fixed, "leak scan (fixed)"), (buggy, "leak scan (buggy)")):
            if ref is not None:
                plan = _leak(kind, c.loc, ref, record, name)
                if plan is not None:
                    out.append(plan)
    return out


def use_after_destroy_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    off = offense(record)
    detail = str(record.get("detail") or "") + " "
    m = _DESTROY_FROM.search(detail)
    destroy_op = m.group(1) if m else None
    kind = off.kind or ("event" if " event " in detail else "stream")
    form = _form(str(record.get("program") or ""), destroy_op)
    plans = []
    for ref, name in ((buggy, "use after destroy (buggy)"), (fixed, "use after destroy (fixed)")):
        if ref is None:
            continue
        calls = parse_calls(ref)
        destroy = _call_at(calls, DESTROYS[kind], destroy_op)
        if destroy is None:
            continue
        capture = f"llvm.call @{DESTROYS[kind]}(%[[H:{VAR}]])"
        plans.append(Plan(name).add(
            destroy.func, *_ordinal(calls, destroy), Directive("", capture),
            Directive("NOT", "%[[H]]{{[,)]}}", True,
                      f"The {kind} destroyed at `{form}` is not used again:")))
    return plans


def sync_alloc_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    cex = record.get("counterexample")
    source_op = cex.get("source_op") if isinstance(cex, dict) else None
    plans = []
    for ref in (fixed, buggy):
        if ref is None:
            continue
        calls = parse_calls(ref)
        alloc = next((c for c in calls if c.loc == source_op
                      and c.callee.startswith("mgpuMemAlloc")), None)
        if alloc is None:
            continue
        form = _form(str(record.get("program") or ""), source_op)
        plans.append(Plan("sync alloc").add(
            alloc.func, *_ordinal(calls, alloc),
            Directive("NOT", "llvm.call @mgpuStreamCreate", True,
                      f"`{form}` creates no stream:"),
            Directive("", f"llvm.call @{alloc.callee}(")))
    return plans


def complete_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    off = offense(record)
    left = [r for r in parse_residue(buggy) if r.loc in set(off.source_ops)
            and not r.name.startswith("builtin.")] or \
        [r for r in parse_residue(buggy) if r.loc in set(off.source_ops)]
    if not left:
        return []
    name = left[0].name
    func = left[0].func
    form = _form(str(record.get("program") or ""), left[0].loc)
    comment = f"`{form}` is lowered to runtime calls, not left as {name}:"
    plans = []
    if fixed is not None:
        calls = parse_calls(fixed)
        first = next((c for c in calls if c.loc == left[0].loc), None)
        if first is not None:
            plans.append(Plan("complete (fixed)").add(
                first.func, *_ordinal(calls, first), Directive("NOT", name, True, comment),
                Directive("", f"llvm.call @{first.callee}(", True)))
    plans.append(Plan("complete").add(func, Directive("NOT", name, True, comment),
                                      Directive("", "llvm.return")))
    return plans


def diff_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    """The fixed lowering's calls for the offending source ops that the buggy
    one lacks, and what the buggy one leaves there that the fixed one does not."""
    if fixed is None:
        return []
    off = offense(record)
    ops = off.source_ops
    b_calls, f_calls = parse_calls(buggy), parse_calls(fixed)
    residue = parse_residue(buggy)
    program = str(record.get("program") or "")
    plan = Plan("diff")
    for op in ops:
        theirs = [c.callee for c in b_calls if c.loc == op]
        for c in (c for c in f_calls if c.loc == op):
            if c.callee in theirs:
                theirs.remove(c.callee)
                continue
            plan.add(c.func, *_ordinal(f_calls, c),
                     Directive("", f"llvm.call @{c.callee}(", True,
                               f"`{_form(program, op)}` calls @{c.callee}:"))
            break
        for r in (r for r in residue if r.loc == op and not r.name.startswith("builtin.")):
            plan.add(r.func, Directive("NOT", r.name, True,
                                       f"`{_form(program, op)}` is not left as {r.name}:"),
                     Directive("", "llvm.return"))
            break
    return [plan] if plan.has_defect() else []


def plans_for(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    """Candidate plans for a violation, best first."""
    invariant = str(record.get("invariant") or "")
    out: list[Plan] = []
    if invariant in ("stream-no-leak", "event-no-leak"):
        out += leak_plans(record, buggy, fixed)
    elif invariant == "stream-no-use-after-destroy":
        out += use_after_destroy_plans(record, buggy, fixed)
    elif invariant == "sync-alloc-no-stream":
        out += sync_alloc_plans(record, buggy, fixed)
    elif invariant == "lowering-complete":
        out += complete_plans(record, buggy, fixed)
    elif invariant == "differential":
        cex = record.get("counterexample")
        diffs = cex.get("differences") if isinstance(cex, dict) else None
        for kind in ("stream", "event"):
            if isinstance(diffs, list) and f"live_{kind}s" in diffs:
                out += leak_scan_plans(kind, buggy, fixed, record)
    return out + diff_plans(record, buggy, fixed)
