"""Every schedule the stream and event semantics allow, as Z3 constraints.

Host calls run in list order at increasing times H[i].  A call that puts
work on a stream gets a start and an end after its issue time; work on one
stream runs in FIFO order; an event record completes after the work its
stream had before it; `mgpuStreamWaitEvent` holds later work of a stream
until the event completes; `mgpuStreamSynchronize` / `mgpuEventSynchronize`
hold the host.  Work the wrapper finishes before returning (allocation, a
free on the null stream) ends before the next host call.  Anything else the
device is free to reorder: a model is a schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from verify.extract import Call
from verify.runtime_api import arg_of, host_synchronous, is_work


@dataclass
class Item:
    """A point or span on the timeline: a work item or a host access."""

    call: Call
    start: z3.ArithRef
    end: z3.ArithRef
    stream: z3.ArithRef | None  # None for host accesses


@dataclass
class Schedule:
    constraints: list[z3.BoolRef] = field(default_factory=list)
    items: dict[int, Item] = field(default_factory=dict)  # by call index
    host: dict[int, z3.ArithRef] = field(default_factory=dict)


def encode(calls: list[Call]) -> Schedule:
    """The schedule constraints of one function's calls (in list order)."""
    sch = Schedule()
    cs = sch.constraints
    if not calls:
        return sch
    prefix = f"{calls[0].func}:"
    times = [z3.Int(f"{prefix}H{c.index}") for c in calls] + [z3.Int(f"{prefix}H_end")]
    for a, b in zip(times, times[1:], strict=False):
        cs.append(a < b)
    after = {c.index: times[k + 1] for k, c in enumerate(calls)}
    for k, c in enumerate(calls):
        sch.host[c.index] = times[k]
        if c.is_host_access:
            sch.items[c.index] = Item(c, times[k], times[k], None)
        elif is_work(c.callee, len(c.args)):
            s, e = z3.Int(f"{prefix}s{c.index}"), z3.Int(f"{prefix}e{c.index}")
            stream = arg_of(c.callee, c.args, "stream")
            stream = z3.IntVal(0) if stream is None else stream
            cs += [s >= times[k], e > s]
            null = z3.is_int_value(stream) and stream.as_long() == 0
            if host_synchronous(c.callee, len(c.args), null):
                cs.append(e < after[c.index])
            sch.items[c.index] = Item(c, s, e, stream)
    work = [it for it in sch.items.values() if it.stream is not None]
    for i, w1 in enumerate(work):
        for w2 in work[i + 1:]:
            cs.append(z3.Implies(z3.And(w1.call.guard, w2.call.guard, w1.stream == w2.stream),
                                 w1.end <= w2.start))
    records: list[tuple[Call, z3.ArithRef]] = []
    waits: list[Call] = []
    for c in calls:
        if c.callee == "mgpuEventRecord" and len(c.args) == 2:
            t = z3.Int(f"{prefix}T{c.index}")
            cs.append(t >= sch.host[c.index])
            for w in work:
                if w.call.index < c.index:
                    cs.append(z3.Implies(z3.And(w.call.guard, c.guard, w.stream == c.args[1]),
                                         t >= w.end))
            # The stream also waited for the events it was told to wait on.
            for wt in waits:
                for r, tr in records:
                    cs.append(z3.Implies(
                        z3.And(wt.guard, r.guard, c.guard, wt.args[0] == c.args[1],
                               r.args[0] == wt.args[1]),
                        t >= tr))
            records.append((c, t))
        elif c.callee == "mgpuStreamWaitEvent" and len(c.args) == 2:
            waits.append(c)
            for r, t in records:
                for w in work:
                    if w.call.index > c.index:
                        cs.append(z3.Implies(
                            z3.And(r.guard, c.guard, w.call.guard, r.args[0] == c.args[1],
                                   w.stream == c.args[0]),
                            w.start >= t))
        elif c.callee == "mgpuEventSynchronize" and len(c.args) == 1:
            for r, t in records:
                cs.append(z3.Implies(z3.And(r.guard, c.guard, r.args[0] == c.args[0]),
                                     after[c.index] >= t))
        elif c.callee == "mgpuStreamSynchronize" and len(c.args) == 1:
            for w in work:
                if w.call.index < c.index:
                    cs.append(z3.Implies(z3.And(w.call.guard, c.guard, w.stream == c.args[0]),
                                         after[c.index] >= w.end))
    return sch


def describe(sch: Schedule, model: z3.ModelRef) -> list[str]:
    """The schedule a model picked: what ran when, on the path it took."""
    rows = []
    for it in sch.items.values():
        if not z3.is_true(model.eval(it.call.guard, model_completion=True)):
            continue
        start = model.eval(it.start, model_completion=True).as_long()
        end = model.eval(it.end, model_completion=True).as_long()
        if it.stream is None:
            where = "host"
        else:
            sid = model.eval(it.stream, model_completion=True).as_long()
            where = ("null stream" if sid == 0 else f"stream#{sid & 0xFFFF}" if sid > 0
                     else "an opaque stream (from an unconverted op)")
        span = f"t={start}" if start == end else f"t={start}..{end}"
        rows.append((start, end, f"{span}: {it.call.callee} from {it.call.source_op or '?'} "
                     f"on {where}"))
    return [r for _, _, r in sorted(rows)]
