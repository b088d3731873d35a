"""A source function with the module functions it calls put in its host order.

The reader (`verify.source.facts`) reads each function once.  A call runs
its callee's ops at the call's place in the caller's host order, once per
call: two calls of one function are two *activations*, with values of their
own.  `inline_source` lists every op of a root function's activations in
host order, so `async-order` can build edges across calls as it does within
one function (a host wait in a helper orders the caller's later work; a
host write before a call orders the callee's kernels).

An op's instance in an activation is keyed by its call stack: the call
sites' location keys, outermost first, which is what the lowered code's
calls carry (`Call.sites`).  Names are those of the activation: a value
passed to a call is its parameter in that activation, a returned value the
call's result, and a local value of a callee is a different one in each
activation (a union-find over (name, stack)).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.source.facts import SourceCall, SourceFacts, SourceOp

# Calls nested deeper than the lowered code's extractor inlines
# (`verify.extract.calls.MAX_INLINE`) are not followed there either.
MAX_DEPTH = 4

Stack = tuple[str, ...]


@dataclass
class HostOrder:
    """The ops a root function's activations run, in host order."""

    root: str
    ops: dict[str, SourceOp] = field(default_factory=dict)  # instance id -> op, in order
    guards: dict[str, smt.BoolRef] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # instance id -> source op id
    instances: dict[tuple[str, Stack], str] = field(default_factory=dict)
    by_op: dict[str, list[str]] = field(default_factory=dict)  # source op id -> instances
    # Why the order of some instance is not decided (a host wait of a callee
    # under a condition the lowered code states in the caller's terms).
    doubts: list[str] = field(default_factory=list)

    def instance(self, op_id: str, stack: Stack) -> str | None:
        """The instance a lowered call of `op_id` inside the calls `stack` is
        of; an op with one activation is that one, whatever its stack (code
        the lowering moved into a helper of its own)."""
        found = self.instances.get((op_id, stack))
        if found is not None:
            return found
        only = self.by_op.get(op_id, [])
        return only[0] if len(only) == 1 else None


class _Names:
    """Union-find over (name, stack): the values of each activation."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, Stack], tuple[str, Stack]] = {}

    def find(self, key: tuple[str, Stack]) -> tuple[str, Stack]:
        while key in self.parent:
            key = self.parent[key]
        return key

    def union(self, a: tuple[str, Stack], b: tuple[str, Stack]) -> None:
        x, y = self.find(a), self.find(b)
        if x != y:
            # The outer activation's name wins: the root's names stay as read.
            if len(x[1]) < len(y[1]):
                x, y = y, x
            self.parent[x] = y

    def text(self, name: str, stack: Stack) -> str:
        n, s = self.find((name, stack))
        # Read in reasons ("depends on %t6 (of the call at f.mlir:61:15)").
        return n if not s else f"{n} (of the call at {' < '.join(reversed(s))})"


def inline_source(src: SourceFacts, root: str) -> tuple[HostOrder, str | None]:
    """The host order of `root` with its calls inlined, and None; where that
    cannot be made (recursion, a call without a location, calls nested too
    deep), the order of `root`'s own ops and why."""
    return _Inliner(src).run(root)


_Tables = tuple[dict[str, int], dict[str, list[SourceOp]], dict[str, list[SourceCall]]]
# The tables of the last facts inlined: each function of a module is
# inlined in turn, and building them is a walk of the whole module.
_LAST: list[tuple[SourceFacts, int, int, _Tables]] = []


def _tables(src: SourceFacts) -> _Tables:
    """Each op's place in program order, each function's own ops and calls."""
    for facts, n_ops, n_calls, tables in _LAST:
        if facts is src and n_ops == len(src.ops) and n_calls == len(src.calls):
            return tables
    index = {op_id: k for k, op_id in enumerate(src.ops)}
    own: dict[str, list[SourceOp]] = {}
    for op in src.ops.values():
        own.setdefault(src.func_of[op.id], []).append(op)
    calls: dict[str, list[SourceCall]] = {}
    for c in src.calls:
        calls.setdefault(c.func, []).append(c)
    _LAST[:] = [(src, len(src.ops), len(src.calls), (index, own, calls))]
    return index, own, calls


class _Inliner:
    def __init__(self, src: SourceFacts) -> None:
        self.src = src
        self.index, self.own, self.calls = _tables(src)
        self.names = _Names()
        # (op, stack, guard of its activation) in host order; the guard is
        # None under a callee's own condition (not in the root's terms).
        self.placed: list[tuple[SourceOp, Stack, smt.BoolRef | None]] = []

    def run(self, root: str) -> tuple[HostOrder, str | None]:
        reason = self.walk(root, (), (root,), fold.TRUE)
        if reason is not None:  # the root's own ops, as read
            self.names = _Names()
            self.placed = [(op, (), fold.TRUE) for op in self.own.get(root, [])]
        return self.build(root), reason

    def walk(self, func: str, stack: Stack, chain: tuple[str, ...],
             outer: smt.BoolRef | None) -> str | None:
        """Place `func`'s activation at `stack` (depth at most `MAX_DEPTH`:
        the recursion is that shallow)."""
        items: list[tuple[int, int, SourceOp | SourceCall]] = [
            (self.index[op.id], 1, op) for op in self.own.get(func, [])]
        items += [(c.position, 0, c) for c in self.calls.get(func, [])]
        items.sort(key=lambda t: (t[0], t[1]))  # a call sits before the op at its position
        for _, _, item in items:
            if isinstance(item, SourceOp):
                self.placed.append((item, stack, outer))
                continue
            if item.id is None:
                return f"the call of @{item.callee} in @{func} has no location"
            if item.callee in chain:
                return f"@{item.callee} is called recursively (from @{func})"
            if len(stack) >= MAX_DEPTH:
                return f"calls are nested deeper than {MAX_DEPTH} (@{item.callee} in @{func})"
            inner = (*stack, item.id)
            self.bind(item, stack, inner)
            # A call under a callee's condition: not one in the root's terms.
            guard = None if outer is None or (stack and item.guard is not fold.TRUE) \
                else fold.conj(outer, item.guard)
            reason = self.walk(item.callee, inner, (*chain, item.callee), guard)
            if reason is not None:
                return reason
        return None

    def bind(self, call: SourceCall, stack: Stack, inner: Stack) -> None:
        """The callee's parameters are the call's operands, the call's results
        the callee's returned values."""
        for param, arg in zip(self.src.params.get(call.callee, ()), call.operands,
                              strict=False):
            if param is not None and arg is not None:
                self.names.union((param, inner), (arg, stack))
        for res, ret in zip(call.results, self.src.returns.get(call.callee, ()),
                            strict=False):
            if res is not None and ret is not None:
                self.names.union((ret, inner), (res, stack))

    def build(self, root: str) -> HostOrder:
        out = HostOrder(root)
        for op, stack, outer in self.placed:
            origin = op.id
            key = op.id if not stack else f"{op.id} (called at {' < '.join(reversed(stack))})"
            guard = self.src.guards[op.id]
            if stack:
                if outer is None or guard is not fold.TRUE:
                    # Its condition is in the callee's terms, the lowered
                    # code's in the caller's: they cannot be matched.  Only a
                    # host wait's condition makes edges; this one makes none.
                    if op.kind == "wait" and op.token is None:
                        out.doubts.append(
                            f"host wait {op.id} runs under a condition of "
                            f"@{self.src.func_of[op.id]} (called at {stack[-1]})")
                    guard = fold.FALSE
                else:
                    guard = outer

            def n(name: str, stack: Stack = stack) -> str:
                return self.names.text(name, stack)

            if stack or self.names.parent:
                op = replace(op, id=key, token=n(op.token) if op.token else None,
                             deps=tuple(n(d) for d in op.deps),
                             buffers=tuple(n(b) for b in op.buffers),
                             result=n(op.result) if op.result else None)
            out.ops[key] = op  # without calls, the op as read (the common case)
            out.guards[key] = guard
            out.origin[key] = origin
            out.instances[(origin, stack)] = key
            out.by_op.setdefault(origin, []).append(key)
        return out
