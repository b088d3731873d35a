"""FileCheck lines that pin a defect, in the custom form `mlir-opt` prints.

Each builder reads the violation (the offending handle and source ops, from
`verify.triage.offending`) and the custom-form outputs of the buggy and of the
fixed lowering, both printed with locations so that a lowered call is tied
to its source op; the lines it writes carry no location.  A plan is a list of
directives per function; the defect directives are those the fixed lowering
satisfies and the buggy one does not.  Builders return candidates, best
first; `repro.proof` keeps the first one it can prove.
"""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.repro.order import order_plans
from gpu_alloc_verify.repro.plan import VAR, Directive, Plan
from gpu_alloc_verify.verify.ir.ir_lines import (
    Call,
    parse_calls,
    parse_residue,
    parse_source,
    strip_locs,
)
from gpu_alloc_verify.verify.ir.text import branch_op, loop_op
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.offending import CREATES, DESTROYS, offense, roles
from gpu_alloc_verify.verify.triage.signature import op_form

Record = dict[str, Any]


def _ordinal(calls: list[Call], target: Call) -> list[Directive]:
    """Lines that step over the calls to the same function before `target`."""
    before = [c for c in calls if c.func == target.func and c.callee == target.callee
              and c.index < target.index]
    return [Directive("", f"llvm.call @{target.callee}(", at=target.loc) for _ in before]


def _call_at(calls: list[Call], callee: str, loc: str | None) -> Call | None:
    return next((c for c in calls if c.callee == callee and c.loc == loc and loc), None)


def _form(program: str, op_id: str | None) -> str:
    return op_form(parse_source(program).by_id(op_id)) if op_id else "?"


def leak_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    kind = "event" if record.get("invariant") == InvariantId.EVENT_NO_LEAK else "stream"
    off = offense(record)
    plans = [p for p in (_leak(kind, off.creator, ref, record, name)
                         for ref, name in ((fixed, "leak (fixed)"), (buggy, "leak (buggy)"))
                         if ref is not None) if p is not None]
    hoisted = _hoisted_out_of_branch(kind, off.creator, record, buggy, fixed)
    times = roles(record).destroy_count
    if times is not None and times >= 2:
        # Destroyed too often: a `leak` plan sees the first destroy and passes.
        plans = [p for p in (_leak(kind, off.creator, ref, record, name, once=True)
                             for ref, name in ((fixed, "destroyed once (fixed)"),
                                               (buggy, "destroyed once (buggy)"))
                             if ref is not None) if p is not None]
    return ([hoisted] if hoisted else []) + plans


def _hoisted_out_of_branch(kind: str, creator: str | None, record: Record, buggy: str,
                           fixed: str | None) -> Plan | None:
    """A handle for an op inside a branch, created before the branch and
    destroyed only in it (it leaks when the branch is not taken), where the
    fixed lowering creates none for that op: no create before the branch.
    A `leak` plan cannot pin this: the destroy is there, on one path."""
    if creator is None:
        return None
    op = parse_source(str(record.get("program") or "")).by_id(creator)
    calls = parse_calls(buggy)
    create = _call_at(calls, CREATES[kind], creator)
    # Without a fixed lowering to read, an event is known to belong at its
    # wait: upstream's own destroy is there (the mechanism of the cause).
    if op is None or not op.nesting or create is None or (
            _call_at(parse_calls(fixed), CREATES[kind], creator) is not None if fixed
            else kind != "event"):
        return None
    lines = buggy.splitlines()
    at = next(((i, name) for i, ln in enumerate(lines) if i > create.index
               and (name := _region_op(ln)) is not None), None)
    if at is None:
        return None
    branch_line, branch = at
    # Destroyed only in the branch: every destroy after it, nested deeper.
    depth = len(lines[create.index]) - len(lines[create.index].lstrip())
    destroys = [d for d in calls if d.callee == DESTROYS[kind] and create.result in d.operands]
    if not destroys or any(d.index < branch_line or len(lines[d.index])
                           - len(lines[d.index].lstrip()) <= depth for d in destroys):
        return None
    text = strip_locs(op.text).split(" : ")[0]
    return Plan("created before the branch").add(
        create.func,
        Directive("NOT", f"llvm.call @{CREATES[kind]}", True,
                  f"No {kind} is created before the branch for `{text}`, its only user: "
                  "it would leak whenever the branch is not taken", at=f"^{creator}"),
        Directive("", branch, at=f"^{creator}"))


def _region_op(line: str) -> str | None:
    """The branch or loop a lowered line opens (`scf.if`, `scf.for`, `cf.cond_br`)."""
    return branch_op(line) or loop_op(line)


def _leak(kind: str, creator: str | None, ref: str, record: Record, name: str,
          once: bool = False) -> Plan | None:
    """The handle created for `creator` is destroyed; with `once`, destroyed
    and then not destroyed again."""
    calls = parse_calls(ref)
    create = _call_at(calls, CREATES[kind], creator)
    if create is None:
        return None
    form = _form(str(record.get("program") or ""), creator)
    destroy = f"llvm.call @{DESTROYS[kind]}(%[[H]])"
    ends = [d.loc for d in calls if d.callee == DESTROYS[kind] and create.result in d.operands]
    at = ends[0] if ends else None
    pin = (Directive("", destroy, at=at),
           Directive("NOT", destroy, True, f"The {kind} created for `{form}` is destroyed "
                     "once only:", at=ends[1] if len(ends) > 1 else at)) if once \
        else (Directive("", destroy, True, f"The {kind} created for `{form}` is destroyed:",
                        at=at),)
    return Plan(name).add(create.func, *_ordinal(calls, create),
                          Directive("", f"%[[H:{VAR}]] = llvm.call @{CREATES[kind]}()",
                                    at=create.loc), *pin)


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
            hoisted = _hoisted_out_of_branch(kind, c.loc, record, buggy, fixed)
            out += [hoisted] if hoisted else []
            continue
        for ref, name in ((fixed, "leak scan (fixed)"), (buggy, "leak scan (buggy)")):
            if ref is not None:
                plan = _leak(kind, c.loc, ref, record, name)
                if plan is not None:
                    out.append(plan)
    return out


def use_after_destroy_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    off, said = offense(record), roles(record)
    kind = off.kind or said.kind or "stream"
    # An event made before the loop or branch whose wait destroys it: pinned
    # where it is made, as its leak is.
    hoisted = _hoisted_out_of_branch(kind, said.handle_from, record, buggy, fixed) \
        if kind == "event" else None
    return ([hoisted] if hoisted else []) + _destroyed_then_used(kind, said.destroy_from,
                                                                 record, buggy, fixed)


def use_after_destroy_scan(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    """For a differential outcome (a runtime error): each destroy of the buggy
    output whose handle a later call of the same function takes."""
    calls = parse_calls(buggy)
    out = []
    for d in calls:
        kind = next((k for k, name in DESTROYS.items() if name == d.callee), None)
        if kind is None or not d.operands or d.loc is None:
            continue
        if any(c.func == d.func and c.index > d.index and d.operands[0] in c.operands
               for c in calls):
            out += _destroyed_then_used(kind, d.loc, record, buggy, fixed)
    return out


def _destroyed_then_used(kind: str, destroy_op: str | None, record: Record, buggy: str,
                         fixed: str | None) -> list[Plan]:
    form = _form(str(record.get("program") or ""), destroy_op)
    plans = []
    for ref, name in ((buggy, "use after destroy (buggy)"), (fixed, "use after destroy (fixed)")):
        if ref is None:
            continue
        calls = parse_calls(ref)
        at = [c for c in calls if c.callee == DESTROYS[kind] and c.loc == destroy_op
              and destroy_op]
        # Of the op's destroys, the one whose handle is taken again.
        destroy = next((d for d in at if d.operands and any(
            c.func == d.func and c.index > d.index and d.operands[0] in c.operands
            for c in calls)), at[0] if at else None)
        if destroy is None:
            continue
        capture = f"llvm.call @{DESTROYS[kind]}(%[[H:{VAR}]])"
        plans.append(Plan(name).add(
            destroy.func, *_ordinal(calls, destroy), Directive("", capture, at=destroy.loc),
            Directive("NOT", "%[[H]]{{[,)]}}", True,
                      f"The {kind} destroyed at `{form}` is not used again:",
                      at=destroy.loc)))
    return plans


def sync_alloc_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    source_op = roles(record).source_op
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
        # The op's own runtime call (the memset, the alloc) over the stream
        # bookkeeping around it: that is what a reader looks for.
        at = [c for c in calls if c.loc == left[0].loc]
        first = next((c for c in at if c.callee.startswith("mgpuMem")), at[0] if at else None)
        if first is not None:
            plans.append(Plan("complete (fixed)").add(
                first.func, *_ordinal(calls, first), Directive("NOT", name, True, comment),
                Directive("", f"llvm.call @{first.callee}(", True)))
    plans.append(Plan("complete").add(func, Directive("NOT", name, True, comment,
                                                      at=left[0].loc),
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
    if invariant in (InvariantId.STREAM_NO_LEAK, InvariantId.EVENT_NO_LEAK):
        out += leak_plans(record, buggy, fixed)
    elif invariant == InvariantId.STREAM_NO_USE_AFTER_DESTROY:
        out += use_after_destroy_plans(record, buggy, fixed)
    elif invariant == InvariantId.SYNC_ALLOC_NO_STREAM:
        out += sync_alloc_plans(record, buggy, fixed)
    elif invariant == InvariantId.LOWERING_COMPLETE:
        out += complete_plans(record, buggy, fixed)
    elif invariant == InvariantId.ASYNC_ORDER:
        out += order_plans(record, buggy, fixed)
    elif invariant == InvariantId.DIFFERENTIAL:
        cex = record.get("counterexample")
        diffs = cex.get("differences") if isinstance(cex, dict) else None
        for kind in ("stream", "event"):
            if isinstance(diffs, list) and f"live_{kind}s" in diffs:
                out += leak_scan_plans(kind, buggy, fixed, record)
        if isinstance(diffs, list) and "errors" in diffs:
            out += use_after_destroy_scan(record, buggy, fixed)
    return out + diff_plans(record, buggy, fixed)
