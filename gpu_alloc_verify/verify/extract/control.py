"""Control flow for the extractor: regions, unstructured branches unrolled
per natural loop (`verify.extract.cfg`), `scf.if`, `scf.for`, `scf.while`.
Paths past the loop bound are cuts."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import cast

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract import cfg as extract_cfg
from gpu_alloc_verify.verify.extract.summary import Exits, Graph, LoopSummaries
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_tuple, type_text, where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRBlock, IROp, IRRegion, IRValue
from gpu_alloc_verify.verify.ir.text import dense_literal
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import conj, ite, neg
from gpu_alloc_verify.verify.model.values import literal

# The edges into a block: each its condition and the operands it passes.
Edges = list[tuple[smt.BoolRef, list[IRValue]]]


def switch_cases(term: IROp) -> list[int] | None:
    """The case values of a switch (`case_values`, a dense integer array)."""
    attr = attr_of(term, "case_values")
    if attr is None:
        return []
    values = int_tuple(attr)
    if values is not None:
        return list(values)
    dense = dense_literal(str(attr))
    if dense is None:
        return None
    body = dense[0].strip().removeprefix("[").removesuffix("]")
    try:
        return [int(x) for x in body.split(",")] if body.strip() else []
    except ValueError:
        return None  # a splat or a form not read: the switch stays a cut


def as_block(node: Hashable) -> IRBlock:
    """A node of the walked graph as the block it is: the nodes walked are the
    region's blocks (`verify.extract.summary`'s back-edge stand-in is only
    ever a target, never walked)."""
    return cast(IRBlock, node)


class ControlFlow(LoopSummaries):
    """Walks regions: one block in order, several as an unrolled DAG of block
    copies whose guards are exact path conditions."""

    def region(self, region: IRRegion, guard: smt.BoolRef) -> list[IRValue] | None:
        """Walk a region; returns the operands its terminator yields (if any)."""
        blocks = list(region.blocks)
        if len(blocks) == 1:
            return self.block_ops(blocks[0], guard)
        self.cfg(blocks, guard)
        return None

    def block_ops(self, block: IRBlock, guard: smt.BoolRef) -> list[IRValue] | None:
        yielded: list[IRValue] | None = None
        for op in block.ops:
            if op_name(op) in ("scf.yield", "scf.condition", "async.yield"):
                yielded = list(op.operands)
            else:
                self.op(op, guard)
        return yielded

    def cfg(self, blocks: list[IRBlock], guard: smt.BoolRef) -> None:
        succ: Graph = {}
        for b in blocks:
            ops = list(b.ops)
            succ[b] = list(ops[-1].successors) if ops else []
        self.walk_cfg(blocks, succ, guard, blocks)

    def walk_cfg(self, blocks: list[IRBlock], succ: Graph, guard: smt.BoolRef,
                 scope: list[IRBlock]) -> Exits:
        """Walk `blocks` from the first; natural loops with no effect the
        invariants see are summarized, the others unrolled.  Returns the
        edges to blocks not among them, by target."""
        loops = extract_cfg.natural_loops(blocks[0], succ)
        if loops is None:
            self.cut(guard, extract_cfg.IRREDUCIBLE)
            return {}
        bodies = loops[1]
        position: dict[Hashable, int] = {b: i for i, b in enumerate(blocks)}
        # Every loop: an effect-free one or a closed one (its handles live and
        # die in one iteration) may be summarized; the trial walk decides.
        candidates = {h: sorted(body, key=lambda b: position.get(b, 0))
                      for h, body in bodies.items()}
        if not candidates:
            # With no loop chosen no summary fails: the exits.
            return cast(Exits, self.walk_plan(blocks, succ, guard, scope, {}))
        snap = self.snapshot()
        # Unrolled first: a loop within the bound is followed exactly, and
        # summarized (its values havoc'd) only when unrolling would cut.
        exits = self.walk_plan(blocks, succ, guard, scope, {})
        if len(self.facts.cuts) == snap.cuts:
            return cast(Exits, exits)  # no loop chosen: no summary failed
        self.restore(snap)
        while True:
            # Outermost candidates only: an inner one is summarized within.
            chosen = {h: body for h, body in candidates.items()
                      if not any(h2 is not h and h in bodies[h2] for h2 in candidates)}
            failed = self.walk_plan(blocks, succ, guard, scope, chosen)
            if isinstance(failed, dict):
                return failed
            self.restore(snap)  # a trial found an effect: unroll that loop instead
            del candidates[failed]

    def walk_plan(self, blocks: list[IRBlock], succ: Graph, guard: smt.BoolRef,
                  scope: list[IRBlock], chosen: Graph
                  ) -> Exits | Hashable:
        """One walk with the loops of `chosen` collapsed into their headers:
        the exit edges, or the header of a loop whose summary failed."""
        members = {b for body in chosen.values() for b in body if b not in chosen}
        flat: Graph = {b: ss for b, ss in succ.items() if b not in members}
        for h, body in chosen.items():
            inside = set(body)
            flat[h] = list(dict.fromkeys(s for b in body for s in succ.get(b, [])
                                         if s not in inside))
        plan = extract_cfg.plan([b for b in blocks if b not in members], flat,
                                self.loop_bound)
        if plan.failure is not None:
            self.cut(guard, plan.failure)
            return {}
        walked = set(blocks)
        exits: Exits = {}
        incoming: dict[extract_cfg.Node, Edges] = {}
        outer = self.iters
        for node in plan.order:
            block = node.block
            if node == plan.order[0]:
                g = guard
            else:
                edges = incoming.get(node, [])
                if block not in walked:  # leaves these blocks: the caller's
                    exits.setdefault(block, []).extend(edges)
                    continue
                g = fold.disj(e for e, _ in edges)
                if g is fold.FALSE:
                    continue
                self.merge_block_args(as_block(block).args, edges, g)
            self.iters = (*outer, *node.counters)
            if block in chosen:
                loop_blocks = cast("list[IRBlock]", chosen[block])  # a loop's blocks: no stand-in
                summary = self.cf_summary(as_block(block), loop_blocks, succ, g, scope)
                if summary is None:
                    self.iters = outer
                    return block
                slot = dict(zip(flat[block], plan.out[node], strict=True))
                for e, operands, t in summary:
                    target = slot[t]
                    if target is None:
                        last = list(as_block(block).ops)[-1]
                        self.cut(e, f"loop at {where(last)} runs more than "
                                 f"{self.loop_bound} iterations")
                    else:
                        incoming.setdefault(target, []).append((e, operands))
                continue
            ops = list(as_block(block).ops)
            for op in ops[:-1]:
                self.op(op, g)
            if not ops:
                continue
            term = ops[-1]
            if not term.successors:
                self.op(term, g)
                continue
            for (cond, operands), target in zip(self.edges(term, g), plan.out[node], strict=True):
                e = conj(g, cond)
                if target is None:
                    self.cut(e, f"loop at {where(term)} runs more than "
                             f"{self.loop_bound} iterations")
                elif e is not fold.FALSE:
                    incoming.setdefault(target, []).append((e, operands))
        self.iters = outer
        return exits

    def merge_block_args(self, args: Sequence[IRValue], edges: Edges,
                         guard: smt.BoolRef) -> None:
        """Assign a block's arguments from its incoming edges, all at once: a
        branch passing (b, a) to the block of (a, b) swaps them."""
        merged = [self.merge_value(arg, [(e, ops[i]) for e, ops in edges if i < len(ops)])
                  for i, arg in enumerate(args)]
        for arg, (term, c) in zip(args, merged, strict=True):
            if c is not None:
                self.define_cond(arg, c, guard)
            self.define(arg, term, guard)
            self.structs.pop(arg, None)  # struct fields are not merged

    def merge_value(self, arg: IRValue, vals: list[tuple[smt.BoolRef, IRValue]]
                    ) -> tuple[smt.ArithRef, smt.BoolRef | None]:
        """The value (and condition, for an i1) an argument gets from `vals`."""
        if not vals:
            return self.fresh_for(arg), None
        c: smt.BoolRef | None = None
        if type_text(arg) == "i1":
            c = self.cond(vals[-1][1])
            for e, v in reversed(vals[:-1]):
                c = ite(e, self.cond(v), c)
        term = self.val(vals[-1][1])
        for e, v in reversed(vals[:-1]):
            term = ite(e, self.val(v), term)
        return term, c

    def edges(self, term: IROp, guard: smt.BoolRef) -> Edges:
        succs = list(term.successors)
        name = op_name(term)
        if name in ("cf.cond_br", "llvm.cond_br") and len(succs) == 2:
            c = self.cond(term.operands[0])
            sizes = int_tuple(attr_of(term, "operandSegmentSizes")) or ()
            rest = list(term.operands[1:])
            if len(sizes) == 3:
                t_ops, f_ops = rest[: sizes[1]], rest[sizes[1]:]
            else:
                n = len(succs[0].args)
                t_ops, f_ops = rest[:n], rest[n:]
            return [(c, t_ops), (neg(c), f_ops)]
        if len(succs) == 1:
            return [(self.true, list(term.operands))]
        if name in ("llvm.switch", "cf.switch"):
            edges = self.switch_edges(term)
            if edges is not None:
                return edges
        # Another multi-way branch, or a switch whose cases are not read.
        self.cut(guard, f"{name} at {where(term)} is not modelled")
        return [(fold.FALSE, []) for _ in succs]

    def switch_edges(self, term: IROp) -> Edges | None:
        """`llvm.switch` / `cf.switch`: the default edge, then one per case
        (the successors' order), each taken when the value equals its case
        and no earlier one; None when the cases or operands are not read."""
        succs = list(term.successors)
        values = switch_cases(term)
        sizes = int_tuple(attr_of(term, "operandSegmentSizes")) or ()
        segments = int_tuple(attr_of(term, "case_operand_segments")) or ()
        if values is None or len(values) != len(succs) - 1 or len(sizes) != 3 \
                or len(segments) != len(values):
            return None
        flag = self.val(term.operands[0])
        w = fold.width_of(flag)
        if w is None:
            return None
        default_ops = list(term.operands[1:1 + sizes[1]])
        case_ops: list[list[IRValue]] = []
        at = 1 + sizes[1]
        for n in segments:
            case_ops.append(list(term.operands[at:at + n]))
            at += n
        tainted = self.tainted(flag)
        taken: list[smt.BoolRef] = []
        out: Edges = []
        for v, ops in zip(values, case_ops, strict=True):
            if tainted:
                # A value the analysis does not follow: any case, one at a time.
                c = conj(*(neg(t) for t in taken), self.new_branch(term))
            else:
                c = fold.eq(flag, v % (1 << w))
            taken.append(c)
            out.append((c, ops))
        default = conj(*(neg(t) for t in taken)) if taken else self.true
        return [(default, default_ops), *out]

    def scf_if(self, op: IROp, guard: smt.BoolRef) -> None:
        c = self.cond(op.operands[0])
        then_ops = self.region(op.regions[0], conj(guard, c)) or []
        else_ops: list[IRValue] = []
        if len(op.regions) > 1 and op.regions[1].blocks:
            else_ops = self.region(op.regions[1], conj(guard, neg(c))) or []
        for i, r in enumerate(op.results):
            t = self.val(then_ops[i]) if i < len(then_ops) else self.fresh_for(r)
            e = self.val(else_ops[i]) if i < len(else_ops) else self.fresh_for(r)
            self.define(r, ite(c, t, e), guard)
            if type_text(r) == "i1":
                tc = self.cond(then_ops[i]) if i < len(then_ops) else self.new_branch(op)
                ec = self.cond(else_ops[i]) if i < len(else_ops) else self.new_branch(op)
                self.define_cond(r, ite(c, tc, ec), guard)

    def scf_for(self, op: IROp, guard: smt.BoolRef) -> None:
        lb, ub, step = (self.val(v) for v in op.operands[:3])
        carried = [self.val(v) for v in op.operands[3:]]
        body = op.regions[0].blocks[0]
        loop = f"loop at {where(op)}"
        w = fold.width_of(lb)
        unsigned = attr_of(op, "unsignedCmp") is not None
        ls = literal(step)
        if w is not None and ls is not None and not unsigned:
            ls = fold.signed(ls, w)
        readable = not (w is None or ls is None or ls <= 0 or self.tainted(lb)
                        or self.tainted(ub))
        less = 6 if unsigned else 2  # icmp ult / slt
        if not (readable and self.trip_within_bound(lb, ub, ls, unsigned)):  # type: ignore[arg-type]
            # Past the bound, or bounds not read: summarized if it may be.
            runs = fold.compare(less, lb, ub) if readable else self.loop_branch()  # type: ignore[arg-type]
            within = (lb, ub, ls, unsigned) if readable and ls is not None else None
            if self.summarize_scf(op, guard, runs, within):
                return
        if not readable:
            self.cut(guard, f"{loop} has a step or bounds the analysis cannot read")
            for r in op.results:
                self.define(r, self.fresh_for(r), guard)
            return
        assert w is not None and ls is not None
        # The induction variable wraps around at its width, and each
        # iteration runs only if every one before it did.
        ran = fold.TRUE
        for i in range(self.loop_bound + 1):
            iv = fold.binop("add", lb, fold.bv(i * ls, w))  # type: ignore[arg-type]
            ran = conj(ran, fold.compare(less, iv, ub))  # type: ignore[arg-type]
            if i == self.loop_bound:
                self.cut(conj(guard, ran), f"{loop} runs more than {self.loop_bound} "
                         "iterations")
                break
            g = conj(guard, ran)
            if g is fold.FALSE:
                break
            self.define(body.args[0], iv, g)  # type: ignore[arg-type]
            for arg, v in zip(body.args[1:], carried, strict=False):
                self.define(arg, v, g)
            outer = self.iters
            self.iters = (*outer, i)
            out = self.block_ops(body, g) or []
            self.iters = outer
            carried = [ite(ran, self.val(new), old)
                       for new, old in zip(out, carried, strict=False)]
        for r, v in zip(op.results, carried, strict=False):
            self.define(r, v, guard)

    def trip_within_bound(self, lb: smt.ArithRef, ub: smt.ArithRef, step: int,
                          unsigned: bool) -> bool:
        """Does a loop of constant bounds run at most `loop_bound` times?
        Unrolled then: it is followed exactly, and no summary is needed."""
        w = fold.width_of(lb)
        lo, hi = literal(lb), literal(ub)
        if w is None or lo is None or hi is None:
            return False
        if not unsigned:
            lo, hi = fold.signed(lo, w), fold.signed(hi, w)
        return hi <= lo or -(-(hi - lo) // step) <= self.loop_bound

    def scf_while(self, op: IROp, guard: smt.BoolRef) -> None:
        if self.summarize_scf(op, guard, fold.TRUE):
            return
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        args = [self.val(v) for v in op.operands]
        exits: list[tuple[smt.BoolRef, list[smt.ArithRef]]] = []
        g = guard
        for i in range(self.loop_bound + 1):
            for a, v in zip(before.args, args, strict=False):
                self.define(a, v, g)
            outer = self.iters
            self.iters = (*outer, i)
            yielded = self.block_ops(before, g) or []
            c = self.cond(yielded[0]) if yielded else self.new_branch(op)
            forwarded = [self.val(v) for v in yielded[1:]]
            exits.append((conj(g, neg(c)), forwarded))
            if i == self.loop_bound:
                self.iters = outer
                self.cut(conj(g, c), f"loop at {where(op)} runs more than "
                         f"{self.loop_bound} iterations")
                break
            g = conj(g, c)
            for a, v in zip(after.args, forwarded, strict=False):
                self.define(a, v, g)
            args = [self.val(v) for v in (self.block_ops(after, g) or [])]
            self.iters = outer
            if g is fold.FALSE:
                break
        for k, r in enumerate(op.results):
            vals = [(e, f[k]) for e, f in exits if k < len(f) and e is not fold.FALSE]
            term = vals[-1][1] if vals else self.fresh_for(r)
            for e, v in reversed(vals[:-1]):
                term = ite(e, v, term)
            self.define(r, term, guard)
