"""Loop summaries (`verify.extract.slicing` says which loops): one iteration
walked with its loop-carried values havoc'd, stands for every iteration;
what the loop defines and later code reads becomes unknown."""

from __future__ import annotations

from collections.abc import Hashable

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import Cut
from gpu_alloc_verify.verify.extract.slicing import Slicing, Snapshot, defined_in, used_by
from gpu_alloc_verify.verify.ir.attrs import where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRBlock, IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import conj, neg

# An exit edge of a summarized `cf` loop: (condition, operands, target block).
Exit = tuple[smt.BoolRef, list[IRValue], Hashable]
# A region's control-flow graph (`verify.extract.cfg`): blocks, and stand-ins as
# targets, to their successors.
Graph = dict[Hashable, list[Hashable]]
# A region's exit edges by target (`ControlFlow.walk_cfg`).
Exits = dict[Hashable, list[tuple[smt.BoolRef, list[IRValue]]]]


class LoopSummaries(Slicing):
    """Summaries of `scf.for`, `scf.while` and natural loops of branches."""

    def summarize_scf(self, op: IROp, guard: smt.BoolRef, runs: smt.BoolRef) -> bool:
        """Summarize `scf.for` / `scf.while` `op` if it has no effect the
        invariants see; `runs`: when its body runs at least once.  False,
        with nothing changed, when it must be unrolled."""
        blocks = [b for r in op.regions for b in r.blocks]
        carried = op.operands[3:] if op_name(op) == "scf.for" else op.operands
        if self.carries_handle(carried):
            return False
        # Effect-free, or else closed (`Slicing.closed_effects`): then
        # async-order is left undecided (`facts.order_cuts`).
        pure = self.loop_is_candidate(blocks)
        snap = self.snapshot()
        why = f"a value of the loop at {where(op)}, summarized"
        first = op.regions[0].blocks[0]
        g = conj(guard, runs)
        for a in first.args:  # the induction variable and carried values
            self.havoc(a, g, why)
        yielded = self.block_ops(first, g) or []
        out = list(yielded)
        if len(op.regions) > 1:  # scf.while: the after region runs while `c`
            c = self.cond(yielded[0]) if yielded else self.loop_branch()
            after = op.regions[1].blocks[0]
            for a in after.args:
                self.havoc(a, conj(g, c), why)
            out += self.block_ops(after, conj(g, c)) or []
        effect_free = pure and self.effects_since(snap) is None
        if not effect_free and not self._closed(snap, out, g, where(op)):
            self.restore(snap)
            return False
        for r in op.results:
            self.havoc(r, guard, why)
        return True

    def _closed(self, snap: Snapshot, carried: list[IRValue], guard: smt.BoolRef, at: str) -> bool:
        """Do the loop's effects since `snap` stay within one iteration
        (`Slicing.closed_effects`, `carried` what leaves it)?  Then one
        iteration stands for all, and an order cut leaves async-order
        undecided across them."""
        if len(self.facts.calls) == snap.calls or self.closed_effects(snap, carried) is not None:
            return False
        self.facts.order_cuts.append(Cut(guard, f"loop at {at} summarized"))
        return True

    def cf_summary(self, header: IRBlock, body: list[IRBlock], succ: Graph,
                   guard: smt.BoolRef, scope: list[IRBlock]) -> list[Exit] | None:
        """Summarize the natural loop `body` (header first) entered under
        `guard`, its header's arguments merged: its exit edges, or None when
        it must be unrolled (what the trial changed is the caller's to undo).
        `scope`: every block of the region, to find later reads."""
        if self.carries_handle(header.args):
            return None
        snap = self.snapshot()
        why = f"a value of the loop at {where(list(header.ops)[-1])}, summarized"
        for a in header.args:
            self.havoc(a, guard, why)
        back = _Back()  # the next iteration: the one walked stands for it
        inner: Graph = {b: [back if s is header else s for s in succ.get(b, [])] for b in body}
        exits = self.walk_cfg(body, inner, guard, scope)
        out = [(e, ops, t) for t, edges in exits.items() if t is not back
               for e, ops in edges if e is not fold.FALSE]
        members = set(body)
        later = used_by(b for b in scope if b not in members)
        for _, ops, _ in out:
            later.update(ops)
        if self.effects_since(snap) is not None:
            # Closed (`Slicing.closed_effects`): what goes round the back
            # edge or out of the loop holds none of its handles.
            carried = [v for edges in exits.values() for _, ops in edges for v in ops]
            if not self._closed(snap, carried + sorted(defined_in(body) & later, key=id),
                                guard, where(list(header.ops)[-1])):
                return None
        for v in defined_in(body) & later:
            self.havoc(v, guard, why)
        # The loop ends (it has no effect to see, real host loops do): by
        # exactly one of the exits the walked iteration can take.
        rest = guard
        chained: list[Exit] = []
        for k, (_, ops, t) in enumerate(out):
            if k == len(out) - 1:
                chained.append((rest, ops, t))
            else:
                b = self.loop_branch()
                chained.append((conj(rest, b), ops, t))
                rest = conj(rest, neg(b))
        return chained

    def walk_cfg(self, blocks: list[IRBlock], succ: Graph, guard: smt.BoolRef,
                 scope: list[IRBlock]) -> Exits:
        raise NotImplementedError

    def block_ops(self, block: IRBlock, guard: smt.BoolRef) -> list[IRValue] | None:
        raise NotImplementedError


class _Back:
    """The target standing for a summarized loop's back edges."""

