"""`async-order`: the source's happens-before edges hold in every schedule.

Edges of the source program:
- token: an op that depends on a token starts after the work behind it
  (within one loop iteration);
- host wait: after `gpu.wait [%t]`, host accesses and every gpu op issued
  later start after the work behind `%t`;
- synchronous op: a synchronous gpu op finishes before later host accesses
  and gpu ops start;
- host access: a host read or write happens before later gpu work on its
  buffer starts, and before a later host access of that buffer when one of
  the two writes (the host runs in program order: the lowered code must
  keep theirs).
"Later" is host order: in a loop, the same or a later iteration (the
unrolled calls' iteration numbers; source text order across loops).
Each edge is one query over the schedule encoding (asserted once, queries
pushed on top); a model is a schedule in which the later op starts before
the earlier one's work is done.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.calls import Call
from gpu_alloc_verify.verify.extract.facts import EXTERNAL_CALL
from gpu_alloc_verify.verify.invariants import solver
from gpu_alloc_verify.verify.invariants.common import Findings, describe_path
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.invariants.schedule import Item, Schedule, describe, encode
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.runtime_api import PROFILES, allocates_at_once, order_kind
from gpu_alloc_verify.verify.model.values import unknown_vars
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation
from gpu_alloc_verify.verify.source.facts import SourceOp
from gpu_alloc_verify.verify.source.inline import HostOrder, inline_source


def _host_ordered(op: SourceOp) -> bool:
    return op.is_host_access or (op.is_sync and op.kind != "wait")


def _same_iteration(a: Item, b: Item) -> bool:
    n = min(len(a.call.iters), len(b.call.iters))
    return a.call.iters[:n] == b.call.iters[:n]


Key = tuple[tuple[int, int], ...]  # (loop instance, iteration) per enclosing loop


def _loop_keys(calls: list[Call]) -> dict[int, Key]:
    """Each call's place in the unrolled loops: consecutive calls stay in one
    loop instance while its iteration number does not go down (calls are
    listed in program order, iteration by iteration)."""
    keys: dict[int, Key] = {}
    prev: tuple[int, ...] = ()
    inst: list[int] = []
    fresh = 0
    for c in calls:
        it = c.iters
        for k in range(len(it)):
            if k >= len(inst):
                inst.append(0)
            if k >= len(prev) or it[:k] != prev[:k] or it[k] < prev[k]:
                fresh += 1
                inst[k] = fresh
        keys[c.index] = tuple(zip(inst[:len(it)], it, strict=True))
        prev = it
    return keys


def _precedes(ka: Key, kb: Key, text_before: bool) -> bool:
    """Does the source run the instance at `ka` before the one at `kb`?  Down
    the common loops: an earlier iteration of one loop instance runs first;
    in the same iteration, or in two different loops, the source text
    order (`text_before`) decides."""
    for (ia, na), (ib, nb) in zip(ka, kb, strict=False):
        if ia != ib:
            return text_before
        if na != nb:
            return na < nb
    return text_before


@dataclass(slots=True)
class _Edge:
    """`earlier`'s work ends before `later` starts.  `after` names the op
    whose place in host order makes the edge (a host wait, a synchronous
    op, a host access): its instances order `later`'s instances that come
    after it, in this or a later loop iteration.  None for a token edge,
    which holds within one iteration."""

    earlier: SourceOp
    later: SourceOp
    cond: smt.BoolRef
    # How `why` reads: "token" (the token `via`), "wait" (host wait `after`)
    # or "host" (a synchronous op or host access); worded only for the few
    # edges that reach the solver, since most are cut before.
    kind: str
    after: str | None = None
    via: str = ""

    @property
    def why(self) -> str:
        x, y = self.earlier, self.later
        if self.kind == "token":
            return f"{y.describe()} depends on {self.via} of {x.describe()}"
        if self.kind == "wait":
            return f"host wait {self.after} awaits {x.describe()} before {y.describe()}"
        what = "synchronous " if x.is_gpu else ""
        return f"{what}{x.describe()} finishes before {y.describe()}"


def _touch(a: SourceOp, b: SourceOp) -> bool:
    return bool(set(a.buffers) & set(b.buffers))


def _where(order: HostOrder, call: Call) -> str | None:
    """The source op instance a lowered call is of."""
    sites = call.sites
    if sites and sites[0][1] == order.root and call.func != order.root:
        sites = sites[1:]  # the C-interface wrapper's call of the root
    stack = tuple(loc or "" for loc, _ in sites)
    return order.instance(call.source_op or "", stack)


def _host_order(ctx: CheckContext, func: str) -> tuple[HostOrder, str | None]:
    """`func`'s source host order with its calls inlined; where they cannot
    be, its own ops' and why (no ops at all for a function the source lacks)."""
    src = ctx.source
    root = func
    if root not in src.params and root.startswith("_mlir_ciface_"):
        root = root.removeprefix("_mlir_ciface_")  # the wrapper runs its function
    if root not in src.params:
        return HostOrder(func), f"@{func} is no function of the source"
    return inline_source(src, root)


class _Edges:
    def __init__(self, ctx: CheckContext, sch: Schedule, func: str, calls: list[Call]) -> None:
        self.ctx = ctx
        self.flat, self.why = _host_order(ctx, func)
        self.items: dict[str, list[Item]] = {}
        # Source functions whose work runs here but in no activation found.
        self.lost: dict[str, str] = {}
        src = ctx.source
        for it in sch.items.values():
            if it.call.func == func and it.call.source_op:
                op = src.ops.get(it.call.source_op)
                if op is not None and not op.is_host_access \
                        and it.call.note.startswith(EXTERNAL_CALL):
                    continue  # an opaque call at another op's location: no access of it
                key = _where(self.flat, it.call)
                if key is None:
                    if op is not None and src.func_of.get(op.id) != func:
                        self.lost.setdefault(src.func_of[op.id],
                                             self.why or "its call is not one of the source's")
                    key = it.call.source_op
                self.items.setdefault(key, []).append(it)
        ops = self.ops = self.flat.ops
        # Without the calls inlined a token may still come from another
        # function's op (a one-call helper's names are the caller's).
        pool = ops if self.why is None else src.ops
        self.producer = {op.token: op for op in pool.values() if op.is_gpu and op.token}
        self.order = {op_id: k for k, op_id in enumerate(ops)}
        self.keys = _loop_keys(calls)
        # Without unrolled loops an edge from an op to one before it in host
        # order never applies (`applies`): such pairs are not even built.
        self.straight = not any(c.iters for c in calls)

    def behind(self, token: str, seen: set[str] | None = None) -> list[SourceOp]:
        """The ops whose work a token stands for (through work-less waits)."""
        seen = seen if seen is not None else set()
        op = self.producer.get(token)
        if op is None or op.id in seen:
            return []
        seen.add(op.id)
        items = self.items.get(op.id)
        if items and not all(allocates_at_once(it.call.callee) for it in items):
            return [op]
        # Work-less, or an allocation: the wrapper allocates at once, ignoring
        # its stream, so its token does not wait for the work before it and
        # stands for that work too.
        deps = [x for d in op.deps for x in self.behind(d, seen)]
        return [op, *deps] if items else deps

    def matters(self, x: SourceOp, y: SourceOp) -> bool:
        """Can an edge from `x` to `y` give a pair or an `unknown`?  Only where
        both have lowered items, or one is a host access without any while
        the other has some (`_lost_access`): the others are not built."""
        has_x, has_y = x.id in self.items, y.id in self.items
        return (has_x and has_y) or (not has_x and has_y and x.is_host_access) \
            or (has_x and not has_y and y.is_host_access)

    def applies(self, e: _Edge, a: Item, b: Item) -> bool:
        """Does edge `e` order instance `a` of its earlier op before `b`?
        `a`'s iteration stands for that of `e.after` (a wait inside a loop
        on a token from before it is taken in the first iteration only)."""
        if self.straight:
            # No call is in a loop: every instance is the op's one, and an
            # edge made at a place in host order reaches only ops after it
            # (`_after`): it applies.
            return True
        if e.after is None:
            return _same_iteration(a, b)
        text_before = self.order[e.after] < self.order[e.later.id]
        return _precedes(self.keys.get(a.call.index, ()), self.keys.get(b.call.index, ()),
                         text_before)

    def never_runs(self, op_id: str) -> bool:
        """Does the source never run this op (say, in a loop of no trips)?
        Then that no lowered code has its location decides nothing."""
        return self.ctx.source.guards.get(self.flat.origin.get(op_id, op_id)) is fold.FALSE

    def edges(self) -> Iterable[_Edge]:
        """The source's happens-before edges within the function (its calls
        inlined)."""
        ops = list(self.ops.values())
        for y in ops:
            for d in y.deps:
                for x in self.behind(d):
                    yield _Edge(x, y, fold.TRUE, "token", via=d)
        ordered = [h for h in ops if _host_ordered(h) or h.is_gpu]
        # `ops` is in host order, so `ordered` is too: where in it an op's
        # successors start is a bisection, not a walk (a long function).
        places = [self.order[h.id] for h in ordered]
        for w in ops:
            if w.kind == "wait" and w.token is None:
                yield from self._host_wait(w, self._after(w, ordered, places))
            elif _host_ordered(w):
                yield from self._host_op(w, self._after(w, ordered, places))

    def _after(self, w: SourceOp, ops: list[SourceOp], places: list[int]
               ) -> Iterable[SourceOp]:
        """The ops an edge made at `w`'s place in host order may reach: those
        after it, or all of them where a loop may bring one round again.
        Lazy: most ops make no edge and never look."""
        if not self.straight:
            return ops
        start = bisect.bisect_right(places, self.order[w.id])
        return (ops[k] for k in range(start, len(ops)))

    def _host_wait(self, w: SourceOp, ops: Iterable[SourceOp]) -> Iterable[_Edge]:
        # The host blocks until the awaited work is done: every host access
        # and every op issued after it (in host order) starts later.
        guard = self.flat.guards[w.id]
        awaited = [x for d in w.deps for x in self.behind(d)]
        if not awaited:
            return  # awaits no work: orders nothing
        for h in ops:
            if h is w:
                continue
            for x in awaited:
                if x is not h and self.matters(x, h):
                    yield _Edge(x, h, guard, "wait", w.id)

    def _host_op(self, y: SourceOp, ops: Iterable[SourceOp]) -> Iterable[_Edge]:
        # A synchronous op finishes, and a host access happens, before what
        # the host does after it: host accesses and synchronous ops, and any
        # gpu op issued later (a host access: one on a buffer it touches, or
        # a host access of it where one of the two writes).
        if y.id not in self.items and not y.is_host_access:
            return  # no lowered work and no host access: no edge of it matters
        for h in ops:
            if h is y or not self.matters(y, h):
                continue
            if y.is_host_access and not _touch(y, h):
                continue
            if y.is_host_access and h.is_host_access and "host.store" not in (y.kind, h.kind):
                continue  # two reads: either order
            yield _Edge(y, h, fold.TRUE, "host", y.id)




def _hidden(sch: Schedule, calls: list[Call]) -> list[smt.ExprRef]:
    """Unknown values the schedule's constraints depend on (streams and events
    the analysis could not follow): in the arguments of work and of the calls
    that order it."""
    found: dict[int, smt.ExprRef] = {}
    for c in calls:
        # Work, and the calls whose handles order it without being work.
        if c.index in sch.items or order_kind(c.callee, len(c.args)):
            for a in c.args:
                for v in unknown_vars(a):
                    found[v.get_id()] = v
    for v in sch.doubts:
        found[v.get_id()] = v
    return list(found.values())


@dataclass
class _Pair:
    """One happens-before edge between two lowered items no chain proves."""

    bad: smt.BoolRef  # a schedule of some path where `later` starts before `earlier` ends
    detail: str
    marked: list[str | None]
    why: str
    # for "`later` may start before `earlier` ends": the two ops and the edge
    # (what `repro/` names in a test's sentence and plan)
    roles: Roles = Roles()


def _open_pairs(f: Findings, sch: Schedule, edges: _Edges, func: str
                ) -> tuple[list[_Pair], bool]:
    """The edges of `func` left to the solver, and whether it has any edge.
    An edge with work on a stream the analysis could not follow is
    `unknown` at once (`f`)."""
    pairs: list[_Pair] = []
    any_edge = False
    for e in edges.edges():
        if _lost_access(f, edges, e):
            continue
        for a in edges.items.get(e.earlier.id, []):
            # Every pair, whatever the issue order: work issued before the
            # work it depends on is the bug to find.
            for b in edges.items.get(e.later.id, []):
                if b is a or not edges.applies(e, a, b):
                    continue
                any_edge = True
                pairs += _pair(f, sch, e, a, b)
    return pairs, any_edge


def _lost_access(f: Findings, edges: _Edges, e: _Edge) -> bool:
    """A host access of the edge has no lowered access with its location
    while the other end has lowered code: the access may be there without
    a location (say, in an outlined helper), in any place.  Undecided."""
    if not (e.earlier.is_host_access or e.later.is_host_access):
        return False  # the common case, asked once per edge: no host access
    ends = ((e.earlier, e.later), (e.later, e.earlier))
    lost = [(op, other) for op, other in ends
            if op.is_host_access and not edges.items.get(op.id) and edges.items.get(other.id)
            and not edges.never_runs(op.id)]
    for op, other in lost:
        f.unknown.append(f"{op.describe()} has no lowered access with its location: its order "
                         f"against {other.describe()} is not decided")
    return bool(lost)


def _pair(f: Findings, sch: Schedule, e: _Edge, a: Item, b: Item) -> list[_Pair]:
    """What may break edge `e` between instances `a` and `b`: `b` starting
    before `a` ends, or either being work that never runs (its stream was
    destroyed before it was enqueued)."""
    x, y = e.earlier, e.later
    if allocates_at_once(b.call.callee):
        # An allocation ignores its stream and touches no memory earlier
        # work could: running it early is unobservable.  What its token
        # orders after it is ordered after the earlier work too (`behind`).
        return []
    path = fold.conj(a.call.guard, b.call.guard, e.cond)
    if path is fold.FALSE or fold.path_of(path) is False:
        return []  # the two never run on one path
    # A chain of constraints proves `a` ends before `b` starts.
    ordered = sch.ordered(a.end, b.start, fold.atoms(path))
    if ordered and fold.truth(a.dead) is False and fold.truth(b.dead) is False \
            and not (a.doubt or b.doubt):
        return []
    why = e.why  # worded only for an edge no chain proves
    unfollowed = [v for it in (a, b) if it.stream is not None
                  for v in unknown_vars(it.stream)]
    if unfollowed or a.doubt or b.doubt:
        # Every order on an unfollowed stream hinges on what it is; with it
        # unlike every other, nothing orders this pair.  A destroy of such a
        # value (or an escape) may have ended the stream of `a` or `b`.
        f.possible(path, f"{why}: whether {b.call.callee} of {y.id} starts after "
                   f"{a.call.callee} of {x.id} ends", about=unfollowed or sch.doubts)
        return []
    out = [_Pair(fold.conj(path, it.dead), f"{why}, yet {it.call.callee} of {op.id} never "
                 "runs: its stream is destroyed before it is enqueued", [x.id, y.id], why)
           for it, op in ((a, x), (b, y)) if it.dead is not fold.FALSE]
    if not ordered:
        out.append(_Pair(fold.conj(path, sch.var(b.start) < sch.var(a.end)),
                         f"{why}, yet {b.call.callee} of {y.id} may start before "
                         f"{a.call.callee} of {x.id} ends", [x.id, y.id], why,
                         Roles(earlier=x.id, later=y.id, edge_kind=e.kind,
                               awaited_by=e.after if e.kind == "wait" else None)))
    return out


# A schedule's constraints, or what builds them on first use.
_Base = list[smt.BoolRef] | Callable[[], list[smt.BoolRef]]


def _decide(f: Findings, sch: Schedule, pairs: list[_Pair], hidden: list[smt.ExprRef]) -> bool:
    """One solver question for all of a function's open edges; only a "yes"
    is looked at pair by pair.  True when a violation was recorded."""
    ctx = f.ctx
    any_bad = fold.conj(fold.disj(p.bad for p in pairs), ctx.lowered.explored)
    with solver.Session(sch.encoding, ctx.timeout_ms) as session:
        answer = session.check(any_bad)
    if answer.status == "unknown":
        f.unknown.append(f"{pairs[0].detail}: {answer.reason}")
    if answer.status != "sat":
        return False
    model = answer.model
    if hidden:
        # The schedule hinges on streams or events the analysis could not
        # follow: a violation is shown only in the schedule that orders
        # everything they could order.
        strong = sch.strengthened()
        shown = None
        if strong is not None:
            with solver.Session(strong, ctx.timeout_ms, own=True) as session:
                shown = session.check(any_bad)
        if shown is None or shown.status != "sat":
            assert model is not None
            pair = _true_in(model, pairs)
            f.hidden.append((pair.detail, pair.bad, hidden))
            return False
        model = shown.model
        assert strong is not None
        base: _Base = strong
    else:
        base = sch.encoding
    assert model is not None
    pair, model = _first_broken(base, pairs, model, ctx)
    f.last_model = model
    path = solver.bool_assignment(model, pair.bad)
    f.violations.append(Violation(
        InvariantId.ASYNC_ORDER, f"{pair.detail}, {describe_path(path)}",
        {"path": path, "edge": pair.why, "schedule": describe(sch, model),
         **pair.roles.entries()},
        sorted({m for m in pair.marked if m})))
    return True


def _first_broken(base: _Base, pairs: list[_Pair], model: smt.ModelRef,
                  ctx: CheckContext) -> tuple[_Pair, smt.ModelRef]:
    """The first pair (in the order the edges are listed) that some schedule
    breaks, with a model showing it.  Which pair one model of the joint
    query shows depends on the solver's state, not on the program; the
    pairs before it are asked one by one, so the edge reported is the same
    on every run."""
    shown = _true_in(model, pairs)
    with solver.Session(base, ctx.timeout_ms, own=True) as session:
        for p in pairs:
            if p is shown:
                break
            answer = session.check(fold.conj(p.bad, ctx.lowered.explored))
            if answer.status == "sat" and answer.model is not None:
                return p, answer.model
    return shown, model


def _true_in(model: smt.ModelRef, pairs: list[_Pair]) -> _Pair:
    for p in pairs:
        if smt.is_true(model.eval(p.bad, model_completion=True)):
            return p
    return pairs[0]


def _untagged_work(f: Findings, sch: Schedule, edges: _Edges, func: str) -> None:
    """Work without a source op's location (say, in an outlined helper) may
    be the work of a source op that has none: that op's edges are not
    decided."""
    src = f.ctx.source
    loose = [it for it in sch.items.values()
             if it.stream is not None and it.call.source_op not in src.ops]
    if not loose:
        return
    for op in edges.ops.values():
        if op.is_gpu and op.kind != "wait" and not edges.items.get(op.id):
            f.unknown.append(f"{op.describe()} has no lowered work with its location, and "
                             f"{loose[0].call.callee} in @{func} has no source op's "
                             "location: the order of that work is not decided")
            return


def check_async_order(ctx: CheckContext) -> CheckResult:
    funcs = list(dict.fromkeys(c.func for c in ctx.lowered.calls))
    f = Findings(InvariantId.ASYNC_ORDER, ctx)
    any_edge = False
    for func, reasons in ctx.source.order_unknown.items():
        f.unknown.extend(f"order in @{func} not decided: {r}" for r in reasons)
    for cut in ctx.lowered.order_cuts:
        # A loop summarized by one iteration: the order across its
        # iterations is not in the calls, whatever the source says of it.
        if solver.check(cut.guard, ctx.timeout_ms).status != "unsat":
            f.unknown.append(f"order not decided: {cut.reason}")
    for func in funcs:
        calls = [c for c in ctx.lowered.calls if c.func == func]
        sch = encode(calls, PROFILES[ctx.runtime].special_streams)
        edges = _Edges(ctx, sch, func, calls)
        for other, why in edges.lost.items():
            f.unknown.append(f"work of @{other} runs inside @{func}: the host order across "
                             f"that call is not modelled ({why})")
        f.unknown.extend(f"order in @{func} not decided: {d}" for d in edges.flat.doubts)
        if edges.why is not None and any(c.func == func for c in ctx.source.calls):
            # The callees' host accesses are not in this order (`verify.source.facts`
            # leaves them to the inlining).
            f.unknown.append(f"order in @{func} not decided across its calls: {edges.why}")
        _untagged_work(f, sch, edges, func)
        pairs, has_edge = _open_pairs(f, sch, edges, func)
        any_edge = any_edge or has_edge
        if not pairs:
            continue
        hidden = _hidden(sch, calls)
        if _decide(f, sch, pairs, hidden):
            return f.result()
    if not any_edge and not f.violations and not f.unknown and not ctx.lowered.cuts:
        return CheckResult(InvariantId.ASYNC_ORDER, Verdict.NOT_APPLICABLE,
                           reason="no happens-before edge between lowered work")
    return f.result()
