"""The offending code of a violation: which lowered lines to mark, which
handle they share, which source ops they come from.

A violation record (the `--json` shape: invariant, detail, counterexample,
marked_calls, lowered text) names source ops; the people-facing output marks
only the runtime calls that involve the offending handle (the leaked stream,
the event used after its destroy), not every line those source ops lowered
to.  Handles are followed by SSA name within one function, which is exact
for the straight-line code a shrunk counterexample has; where no handle is
found the calls of the named source ops are marked instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.ir.ir_lines import Call, Residue, parse_calls, parse_residue
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import InvariantId

Record = dict[str, Any]

CREATES = {"stream": "mgpuStreamCreate", "event": "mgpuEventCreate"}
DESTROYS = {"stream": "mgpuStreamDestroy", "event": "mgpuEventDestroy"}


@dataclass
class Offense:
    """What a violation is about in the lowered text."""

    kind: str  # "stream", "event" or "" (no handle)
    handle: str | None  # the handle's SSA name in `func`
    func: str
    calls: list[Call] = field(default_factory=list)  # in text order
    residue: list[Residue] = field(default_factory=list)
    creator: str | None = None  # source op id that made the handle
    source_ops: list[str] = field(default_factory=list)  # in text order, no repeats

    def lines(self) -> set[int]:
        """0-based lines of the lowered text to mark."""
        return {c.index for c in self.calls} | {r.index for r in self.residue}

    def pattern(self) -> list[str]:
        """Callees and leftover op names in text order (repeats kept)."""
        items = [(c.index, c.callee) for c in self.calls]
        items += [(r.index, r.name) for r in self.residue]
        return [name for _, name in sorted(items)]


def counterexample(record: Record) -> Record:
    """A violation record's counterexample (an empty one when it has none)."""
    cex = record.get("counterexample")
    return cex if isinstance(cex, dict) else {}


def roles(record: Record) -> Roles:
    """The roles the checker recorded (`verify.model.roles`): the creator,
    destroy and use of a handle, the op left unconverted.  Read from there,
    never from the worded detail."""
    return Roles.of(record)


def marked_calls(record: Record) -> list[str]:
    """The source ops a violation record marks as offending."""
    marked = record.get("marked_calls")
    if isinstance(marked, str):
        return [marked]
    return [str(m) for m in marked if m] if isinstance(marked, list) else []


def _touching(calls: list[Call], func: str, handle: str) -> list[Call]:
    return [c for c in calls if c.func == func and (c.result == handle or handle in c.operands)]


def _with_sources(off: Offense) -> Offense:
    seen: list[str] = []
    items = sorted([(c.index, c.loc) for c in off.calls] + [(r.index, r.loc)
                                                            for r in off.residue])
    for _, loc in items:
        if loc and loc not in seen:
            seen.append(loc)
    off.source_ops = seen
    return off


def _handle_from_create(calls: list[Call], kind: str, source_op: str | None) -> Offense | None:
    create = next((c for c in calls if c.callee == CREATES[kind] and c.result
                   and c.loc == source_op), None)
    if create is None or create.result is None:
        return None
    return _with_sources(Offense(kind, create.result, create.func,
                                 _touching(calls, create.func, create.result),
                                 creator=source_op))


def _handle_from_destroy(calls: list[Call], kind: str, destroy_op: str | None
                         ) -> Offense | None:
    destroy = next((c for c in calls if c.callee == DESTROYS[kind] and c.operands
                    and c.loc == destroy_op), None)
    if destroy is None:
        return None
    handle = destroy.operands[0]
    return _with_sources(Offense(kind, handle, destroy.func,
                                 _touching(calls, destroy.func, handle)))


def _at_ops(calls: list[Call], residue: list[Residue], ops: list[str]) -> Offense:
    wanted = set(ops)
    mine = [c for c in calls if c.loc in wanted]
    left = [r for r in residue if r.loc in wanted]
    func = (mine[0].func if mine else left[0].func if left else "")
    return _with_sources(Offense("", None, func, mine, left))


def offense(record: Record) -> Offense:
    """The offending handle and lowered lines of a violation record."""
    lowered = str(record.get("lowered") or "")
    calls = parse_calls(lowered)
    invariant = str(record.get("invariant") or "")
    said = roles(record)
    source_op = said.source_op
    marked = marked_calls(record)
    found: Offense | None = None
    used_kind = said.kind  # the handle kind of a use after destroy
    if invariant in (InvariantId.STREAM_NO_LEAK, InvariantId.EVENT_NO_LEAK):
        kind = "event" if invariant == InvariantId.EVENT_NO_LEAK else "stream"
        found = _handle_from_create(calls, kind, source_op)
    elif invariant == InvariantId.STREAM_NO_USE_AFTER_DESTROY and used_kind in CREATES:
        kind = str(used_kind)
        if said.handle_from:
            found = _handle_from_create(calls, kind, said.handle_from)
        if found is None:
            found = _handle_from_destroy(calls, kind, said.destroy_from)
        use_from = said.use_from
        if found is not None and use_from is not None and use_from not in found.source_ops:
            found = None  # the handle read is not the one the checker means
    elif invariant == InvariantId.SYNC_ALLOC_NO_STREAM and source_op:
        found = _handle_from_create(calls, "stream", source_op)
    elif invariant == InvariantId.HOST_SHARED_FLAG and source_op:
        allocs = [c for c in calls if c.loc == source_op and c.callee.startswith("mgpuMemAlloc")]
        found = _with_sources(Offense("", None, allocs[0].func if allocs else "", allocs))
    elif invariant == InvariantId.LOWERING_COMPLETE:
        residue = parse_residue(lowered)
        left = said.left
        at = [r for r in residue if r.loc == source_op and r.name == left] or \
            [r for r in residue if r.loc == source_op]
        if at:
            found = _with_sources(Offense("", None, at[0].func, [], at))
    if found is None or not (found.calls or found.residue):
        found = _at_ops(calls, parse_residue(lowered), marked or ([source_op] if source_op
                                                                  else []))
    return found
