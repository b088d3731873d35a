"""FileCheck lines that pin a broken happens-before edge (`async-order`).

An `async-order` violation names an edge of the source: the work of op X
must end before op Y starts.  In the fixed lowering's output the edge is a
chain of runtime calls: X's work on stream S, then S synchronized, or an
event recorded on S and that event synchronized or waited on by a stream
S2, and so on, until Y (host code, or work on the last stream).  The test
pins that chain with FileCheck captures, and the buggy output fails at its
first link.  The witness (what must hold on the buggy output for the test
to pin a real defect) is: X's work on S, then no synchronize or record of
S, then Y.

Links are found the way FileCheck will match them: each is the first line
after the previous one that fits its pattern, so the chain the test
describes is the one FileCheck sees.  Where X or Y is not the first line
of its pattern in either output (the two outputs differ in what comes
before), no plan is made: a capture could bind another op's stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.repro.plan import VAR, Directive, Plan
from gpu_alloc_verify.verify.ir.ir_lines import func_of_line, loc_id, parse_calls, parse_source
from gpu_alloc_verify.verify.ir.locations import strip
from gpu_alloc_verify.verify.ir.text import host_access, launch_func
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.runtime_api import is_work, roles

Record = dict[str, Any]

MAX_LINKS = 6


@dataclass(frozen=True)
class Line:
    """One op line of lowered text that a link or an end of the edge can be."""

    index: int
    func: str
    kind: str  # "call", "launch", "host"
    name: str  # callee, kernel symbol, or llvm.load / llvm.store
    operands: tuple[str, ...]
    stream: str | None  # the stream work is queued on
    loc: str | None


def read_lines(text: str) -> list[Line]:
    """The runtime calls (`verify.ir.ir_lines.parse_calls`), converted
    launches and host loads and stores of custom-form lowered text."""
    out: list[Line] = []
    for c in parse_calls(text):
        ops = tuple(c.operands)
        sig = roles(c.callee, len(ops)) or ()
        stream = ops[sig.index("stream")] if "stream" in sig and is_work(c.callee, len(ops)) \
            else None
        out.append(Line(c.index, c.func, "call", c.callee, ops, stream, c.loc))
    func = ""
    for i, line in enumerate(text.splitlines()):
        func = func_of_line(line, func)
        if (launch := launch_func(line)) is not None:
            out.append(Line(i, func, "launch", f"{launch.module}::@{launch.kernel}", (),
                            launch.stream, loc_id(line)))
        elif (access := host_access(line)) is not None:
            out.append(Line(i, func, "host", access, (), None, loc_id(line)))
    return sorted(out, key=lambda ln: ln.index)


def _family(callee: str) -> str:
    """The callee with and without the split API's `Async` suffix."""
    base = callee.removesuffix("Async")
    return f"{{{{{base}(Async)?}}}}" if base.startswith("mgpuMem") else callee


def _pattern(line: Line, stream: str | None) -> str:
    """`line` as a FileCheck pattern; its stream operand as `stream` (a
    capture or a use, `%[[S]]`) when given, any value otherwise."""
    if line.kind == "host":
        return line.name
    if line.kind == "launch":
        on = f"<{stream} : !llvm.ptr> " if stream else "{{.*}}"
        return f"gpu.launch_func {on}@{line.name}"
    args = []
    for op in line.operands:
        args.append(stream if stream is not None and op == line.stream else "{{[^,)]*}}")
    return f"llvm.call @{_family(line.name)}({', '.join(args)})"


def _matches(line: Line, like: Line) -> bool:
    """Would `like`'s pattern (stream left open) match `line`?"""
    if line.kind != like.kind or line.func != like.func:
        return False
    if line.kind == "call":
        return line.name.removesuffix("Async") == like.name.removesuffix("Async") \
            and len(line.operands) == len(like.operands)
    return line.name == like.name


def _first_of(lines: list[Line], target: Line, after: int) -> bool:
    """Is `target` the first line after `after` that its pattern matches?"""
    return next((x for x in lines if x.index > after and _matches(x, target)), None) is target


@dataclass(frozen=True)
class Link:
    line: Line
    pattern: str
    # The capture of the stream the chain is on after this link; "" once it
    # has reached the host (a synchronize).
    stream: str


def _chains(lines: list[Line], stream: str, start: int, end: int, func: str,
            target: str | None) -> list[list[Link]]:
    """Chains of synchronizing calls between `start` and `end` that order the
    work on `stream` before the end: onto the host (a synchronize), or onto
    stream `target` where the end is work on it.  Shortest first."""
    calls = [x for x in lines if x.kind == "call" and x.func == func and start < x.index < end]
    found: list[list[Link]] = []
    names = iter(f"H{k}" for k in range(1, 99))

    def first(callee: str, pos: int, ok: Callable[[Line], bool]) -> Line | None:
        return next((c for c in calls if c.index > pos and c.name == callee and ok(c)), None)

    def walk(s: str, cap: str, pos: int, chain: list[Link]) -> None:
        if len(chain) > MAX_LINKS:
            return
        if target is not None and s == target:
            found.append(chain)
            return
        # A chain that reaches the host orders any later op, work included.
        sync = first("mgpuStreamSynchronize", pos, lambda c: c.operands == (s,))
        if sync is not None:
            found.append([*chain, Link(sync, f"llvm.call @mgpuStreamSynchronize(%[[{cap}]])",
                                       "")])
        rec = first("mgpuEventRecord", pos, lambda c: len(c.operands) == 2 and c.operands[1] == s)
        if rec is None:
            return
        ev = next(names)
        rec_link = Link(rec, f"llvm.call @mgpuEventRecord(%[[{ev}:{VAR}]], %[[{cap}]])", cap)
        esync = first("mgpuEventSynchronize", rec.index,
                      lambda c: c.operands == (rec.operands[0],))
        if esync is not None:
            found.append([*chain, rec_link,
                          Link(esync, f"llvm.call @mgpuEventSynchronize(%[[{ev}]])", "")])
        wait = first("mgpuStreamWaitEvent", rec.index,
                     lambda c: len(c.operands) == 2 and c.operands[1] == rec.operands[0])
        if wait is not None:
            s2 = next(names)
            walk(wait.operands[0], s2, wait.index, [*chain, rec_link, Link(
                wait, f"llvm.call @mgpuStreamWaitEvent(%[[{s2}:{VAR}]], %[[{ev}]])", s2)])

    walk(stream, "S", start, [])
    return sorted(found, key=len)


def _of(loc: str | None, op: str) -> bool:
    """Is a line located at source op `op`, or at a copy a pass made of it
    (`op2.2`, see `verify.source.to_program`)?"""
    return loc is not None and (loc == op or loc.startswith(op + ".")
                                and loc[len(op) + 1:].isdigit())


def _ends(lines: list[Line], x: str, y: str) -> tuple[Line, Line] | None:
    """X's work and Y's first effect, in one function, X first."""
    work = next((ln for ln in lines if _of(ln.loc, x) and ln.stream is not None), None)
    if work is None:
        return None
    at_y = [ln for ln in lines if _of(ln.loc, y) and ln.func == work.func
            and ln.index > work.index]
    # Y's effect: its work (a launch, an mgpuMem* call) or host access, over
    # the stream bookkeeping a lowering puts around it.
    later = next((ln for ln in at_y if ln.kind == "launch" or ln.kind == "host"
                  or is_work(ln.name, len(ln.operands))), at_y[0] if at_y else None)
    return (work, later) if later is not None else None


def _aligned(ends: tuple[Line, Line], lines: list[Line]) -> bool:
    work, later = ends
    return _first_of(lines, work, -1) and _first_of(lines, later, work.index)


def op_text(program: str, op_id: str) -> str:
    """A source op as written, without location and types: what a reader of
    the test finds in it (`%t5 = gpu.dealloc async [%t1] %m2`)."""
    op = parse_source(program).by_id(op_id)
    if op is None:
        return op_id
    text, depth = strip(op.text), 0
    if " blocks in (" in text:  # a launch: its kernel says enough
        return text.split(" blocks in (")[0] + " ..."
    for i, ch in enumerate(text):
        depth += {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1}.get(ch, 0)
        if depth == 0 and text.startswith(" : ", i):
            return text[:i]
    return text.rstrip(" {")


def edge_sentence(record: Record) -> str | None:
    """What an async-order violation breaks, with the ops as written."""
    said = Roles.of(record)
    if said.earlier is None or said.later is None:
        return None
    program = str(record.get("program") or "")
    y, x = op_text(program, said.later), op_text(program, said.earlier)
    if said.edge_kind == "wait":
        reason = f"`{op_text(program, str(said.awaited_by))}` awaits it"
    elif said.edge_kind == "token":
        reason = "the second depends on the first's token"
    else:
        reason = "the first is synchronous"
    return (f"`{x}` must finish before `{y}` starts ({reason}), yet the lowered code "
            f"may start the second first")


def order_plans(record: Record, buggy: str, fixed: str | None) -> list[Plan]:
    """The fixed lowering's chain for the violated edge, as a plan."""
    said = Roles.of(record)
    if said.earlier is None or said.later is None or fixed is None:
        return []
    y, x = said.later, said.earlier
    f_lines, b_lines = read_lines(fixed), read_lines(buggy)
    f_ends, b_ends = _ends(f_lines, x, y), _ends(b_lines, x, y)
    if f_ends is None or b_ends is None or not (_aligned(f_ends, f_lines)
                                                and _aligned(b_ends, b_lines)):
        return []
    work, later = f_ends
    if not (_matches(b_ends[0], work) and _matches(b_ends[1], later)):
        return []
    target = later.stream
    chains = _chains(f_lines, work.stream or "", work.index, later.index, work.func, target)
    plans = []
    for chain in chains[:2]:
        if not _first_of(f_lines, later, chain[-1].line.index if chain else work.index):
            continue  # FileCheck would take an earlier line for Y
        last_stream = chain[-1].stream if chain else "S"
        head = Directive("", _pattern(work, f"%[[S:{VAR}]]"))
        program = str(record.get("program") or "")
        comment = (f"`{op_text(program, x)}` is ordered before `{op_text(program, y)}`: "
                   "its stream synchronized, or an event of it awaited")
        links = [Directive("", ln.pattern, True, comment if k == 0 else "")
                 for k, ln in enumerate(chain)]
        end_stream = f"%[[{last_stream}]]" if target is not None and last_stream else None
        # The end is a defect line too: a buggy output that synchronizes S
        # only after Y fails there (the witness still needs Y to exist).
        tail = Directive("", _pattern(later, end_stream), True)
        plan = Plan(f"order ({len(chain)} link(s))").add(work.func, head, *links, tail)
        if chain:  # else the default witness: Y not on S
            free = "{{(%[0-9a-zA-Z_]+, )?}}"
            plan.witness = {work.func: [
                head,
                Directive("NOT", f"@{{{{mgpuStreamSynchronize|mgpuEventRecord}}}}({free}%[[S]])"),
                Directive("", _pattern(later, None))]}
        plans.append(plan)
    return plans

