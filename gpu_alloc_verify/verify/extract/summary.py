"""Loop summaries (`verify.extract.slicing` says which loops): one iteration
walked with its loop-carried values havoc'd, stands for every iteration.

A havoc'd integer is one variable (the value in some round), so every
condition on it is a condition on one term; the body runs under the
loop's own guard (an `scf.for`'s bounds, an `scf.while`'s condition, a
`cf` header's branch).  Carried values and integer cells of stack slots
that every round passes on unchanged keep their entry value (a fixpoint
drops any that a walk does not give back).  After a `cf` loop, values read
later are the walked round's terms renamed to the exit round's, and the
exit taken holds of them; other values the loop defines become unknown."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import Cut
from gpu_alloc_verify.verify.extract.slicing import Slicing, Snapshot, defined_in, used_by
from gpu_alloc_verify.verify.ir.attrs import type_text, where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRBlock, IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import conj, neg
from gpu_alloc_verify.verify.model.values import literal, unknown_vars

# An exit edge of a summarized `cf` loop: (condition, operands, target block).
Exit = tuple[smt.BoolRef, list[IRValue], Hashable]
# A region's control-flow graph (`verify.extract.cfg`): blocks, and stand-ins as
# targets, to their successors.
Graph = dict[Hashable, list[Hashable]]
# Cells of stack slots a summarized loop carries: (slot, byte offset) ->
# (kept at its value before the loop, width in bits, size in bytes).
Cells = dict[tuple[int, int], tuple[bool, int, int]]
# An `scf.for`'s bounds as read: lower, upper, a constant step, unsigned.
Bounds = tuple[smt.ArithRef, smt.ArithRef, int, bool]
# A region's exit edges by target (`ControlFlow.walk_cfg`).
Exits = dict[Hashable, list[tuple[smt.BoolRef, list[IRValue]]]]


# A substitution of one round's terms by another's (a `z3.substitute` closure).
Renaming = Callable[[Any], Any]


class LoopSummaries(Slicing):
    """Summaries of `scf.for`, `scf.while` and natural loops of branches."""

    def summarize_scf(self, op: IROp, guard: smt.BoolRef, runs: smt.BoolRef,
                      within: Bounds | None = None) -> bool:
        """Summarize `scf.for` / `scf.while` `op` if it has no effect the
        invariants see; `runs`: when its body runs at least once; `within`:
        an `scf.for`'s bounds, read (its body runs only for an induction
        value in them).  False, with nothing changed, when it must be
        unrolled."""
        blocks = [b for r in op.regions for b in r.blocks]
        is_for = op_name(op) == "scf.for"
        carried = op.operands[3:] if is_for else op.operands
        if self.carries_handle(carried):
            return False
        # Effect-free, or else closed (`Slicing.closed_effects`): then
        # async-order is left undecided (`facts.order_cuts`).
        pure = self.loop_is_candidate(blocks)
        snap = self.snapshot()
        why = f"a value of the loop at {where(op)}, summarized"
        first = op.regions[0].blocks[0]
        g = conj(guard, runs)
        state = list(first.args[1:]) if is_for else list(first.args)
        inits = [self.val(v) for v in carried]
        kept = set(range(min(len(state), len(inits))))
        cells: Cells = {}
        outer_cells = self.carried_cells
        while True:
            self.enter_cells(snap, cells, g, outer_cells)
            # Carried values that stay what they were before the loop in
            # every round (each round yields them back) keep that value;
            # the others are havoc'd.  Asked again until no kept one fails.
            body_g = g
            if is_for:
                iv = first.args[0]
                self.havoc(iv, g, why)
                if within is not None:
                    body_g = conj(g, self.in_bounds(self.val(iv), within))
            stored = self.enter_state(state, list(carried), inits, kept, body_g, why)
            yielded = self.block_ops(first, body_g) or []
            out = list(yielded)
            back = yielded
            if len(op.regions) > 1:  # scf.while: the after region runs while `c`
                c = self.cond(yielded[0]) if yielded else self.loop_branch()
                after = op.regions[1].blocks[0]
                for a, v in zip(after.args, yielded[1:], strict=False):
                    # The values the condition forwards, as they are: the
                    # condition on them holds in the body.
                    self.define(a, self.val(v), conj(body_g, c))
                    if type_text(a) == "i1":
                        self.define_cond(a, self.cond(v), conj(body_g, c))
                    if v in self.structs:
                        self.structs[a] = self.structs[v]
                for a in after.args[len(yielded[1:]):]:
                    self.havoc(a, conj(body_g, c), why)
                back = self.block_ops(after, conj(body_g, c)) or []
                out += back
            failed = {k for k in kept if k >= len(back)
                      or not self.same_value(back[k], inits[k], stored[k])}
            grown = self.loop_cells(snap, cells)
            if grown is None:
                break  # a slot's cell that is no integer: the effect check refuses
            if not failed and grown == cells:
                break
            kept -= failed
            cells = grown
            self.restore(snap)
        effect_free = pure and self.effects_since(snap) is None
        if not effect_free and not self._closed(snap, out, g, where(op)):
            self.restore(snap)
            return False
        # The results are what the round the loop leaves by gives: the
        # walked round's terms renamed to that round's (see `cf_summary`),
        # of which the exit condition holds (an scf.while's condition is
        # false; an scf.for's next induction value is not below `ub`).
        copy = self.exit_copy(self.loop_vars[len(snap.state["loop_vars"]):])
        ran = conj(guard, runs)
        given = list(yielded[1:]) if len(op.regions) > 1 else list(back)
        leave: smt.BoolRef | None = None
        if len(op.regions) > 1 and yielded:
            leave = neg(self.cond(yielded[0]))
        elif is_for and within is not None:
            iv_term = self.val(first.args[0])
            w = fold.width_of(iv_term)
            if w is not None:
                step_up = fold.binop("add", iv_term, fold.bv(within[2], w))  # type: ignore[arg-type]
                if step_up is not None:
                    leave = conj(self.in_bounds(iv_term, within),
                                 neg(fold.compare(6 if within[3] else 2, step_up,
                                                  within[1])))  # type: ignore[arg-type]
        exit_known = leave is not None and not unknown_vars(leave)
        if exit_known:
            self.facts.assumptions.append(fold.disj((neg(ran), copy(leave))))
            self.facts._explored = None
        self.leave_cells(snap, cells, guard, outer_cells)
        for k, r in enumerate(op.results):
            term = self.val(given[k]) if exit_known and k < len(given) else None
            if term is not None and fold.width_of(term) is not None \
                    and not unknown_vars(term):
                self.define(r, copy(term), ran)
                if type_text(r) == "i1":
                    rc = self.conds.get(given[k])
                    self.define_cond(r, copy(rc) if rc is not None and not unknown_vars(rc)
                                     else fold.eq(copy(term), 1), ran)
            else:
                self.havoc(r, ran, why)
            if is_for and k < len(inits) and runs is not fold.TRUE:
                # A loop that runs no round gives back its initial values.
                self.define(r, inits[k], conj(guard, neg(runs)))
        return True

    def loop_cells(self, snap: Snapshot, cells: Cells) -> Cells | None:
        """The cells of slots made before the loop that a round changed, as
        a summary carries them: kept (True) when every round stores back
        what the cell held before the loop, else havoc'd; with the width
        and size of each.  None when a changed cell holds no integer (a
        pointer, a handle): then the summary is refused as before."""
        out = dict(cells)
        for s in snap.state["slots"]:
            if s in self.escaped_slots:
                continue
            now, before = self.mem.get(s, {}), snap.mem.get(s, {})
            for o in now.keys() | before.keys():
                a, b = now.get(o), before.get(o)
                if a is b:
                    continue
                if a is None:
                    return None
                w = fold.width_of(a[0])
                if w is None or (b is not None and (fold.width_of(b[0]) != w or b[1] != a[1])):
                    return None
                if (s, o) not in out:
                    out[(s, o)] = (b is not None, w, a[1])
                elif out[(s, o)][0] and not (b is not None and _same_term(a[0], b[0])):
                    out[(s, o)] = (False, w, a[1])
        return out

    def enter_cells(self, snap: Snapshot, cells: Cells, guard: smt.BoolRef,
                    outer: frozenset[tuple[int, int]]) -> None:
        """A round's carried cells: kept ones as before the loop, the others
        an integer of their own (chosen like an argument)."""
        self.carried_cells = outer | frozenset(cells)
        for (s, o), (keep, w, size) in cells.items():
            if keep:
                continue
            self.fresh_count += 1
            term = fold.bits_var(f"{self.func}:?cell{self.fresh_count}", w)
            self.loop_vars.append(term)
            old = snap.mem.get(s, {}).get(o)
            slot = self.mem.setdefault(s, {})
            slot[o] = (term if old is None else fold.ite(guard, term, old[0]), size)

    def leave_cells(self, snap: Snapshot, cells: Cells, guard: smt.BoolRef,
                    outer: frozenset[tuple[int, int]]) -> None:
        """After the loop: a kept cell holds what it held before, a havoc'd
        one what some round (or none) left: an integer of its own."""
        self.carried_cells = outer
        for (s, o), (keep, w, size) in cells.items():
            old = snap.mem.get(s, {}).get(o)
            slot = self.mem.setdefault(s, {})
            if keep and old is not None:
                slot[o] = old
                continue
            self.fresh_count += 1
            term = fold.bits_var(f"{self.func}:?cell{self.fresh_count}", w)
            self.loop_vars.append(term)
            slot[o] = (term if old is None else fold.ite(guard, term, old[0]), size)

    def in_bounds(self, iv: smt.ArithRef, within: Bounds) -> smt.BoolRef:
        """`iv < ub` and, where no step can wrap around, `lb <= iv` (signed
        or unsigned as the loop compares), and `iv - lb` a multiple of a
        power-of-two step: what every round's induction value is."""
        lb, ub, step, unsigned = within
        less, at_most = (6, 7) if unsigned else (2, 3)
        w = fold.width_of(iv)
        parts = [fold.compare(less, iv, ub)]  # type: ignore[arg-type]
        if w is not None:
            # The induction value wraps around at its width: it stays at or
            # above `lb` only when no step from below `ub` can pass the top.
            top = (1 << w) - 1 if unsigned else (1 << (w - 1)) - 1
            if top - step + 1 >= 0:
                no_wrap = fold.compare(at_most, ub, fold.bv(top - step + 1, w))  # type: ignore[arg-type]
                parts.append(fold.disj((neg(no_wrap),
                                        fold.compare(at_most, lb, iv))))  # type: ignore[arg-type]
        if w is not None and step > 1 and step & (step - 1) == 0:
            diff = fold.binop("sub", iv, lb)  # type: ignore[arg-type]
            low = fold.binop("and", diff, fold.bv(step - 1, w))  # type: ignore[arg-type]
            if low is not None:
                parts.append(fold.eq(low, 0))
        return conj(*parts)

    def enter_state(self, args: list[IRValue], sources: list[IRValue],
                    inits: list[smt.ArithRef], kept: set[int], guard: smt.BoolRef,
                    why: str) -> list[smt.ArithRef | None]:
        """A round's carried values: the initial one for each index in
        `kept`, a havoc'd one for the others.  Returns what each kept one
        is then (`same_value` compares a yielded value against it)."""
        stored: list[smt.ArithRef | None] = []
        for k, a in enumerate(args):
            if k in kept:
                self.define(a, inits[k], guard)
                if type_text(a) == "i1":
                    self.define_cond(a, self.cond(sources[k]) if k < len(sources)
                                     else self.cond_of(inits[k]), guard)
                if k < len(sources) and sources[k] in self.structs:
                    self.structs[a] = self.structs[sources[k]]
                else:
                    self.structs.pop(a, None)
                stored.append(self.env.get(a))
            else:
                self.havoc(a, guard, why)
                stored.append(None)
        return stored

    def cond_of(self, term: smt.ArithRef) -> smt.BoolRef:
        """An i1 value's condition, from its bit."""
        v = literal(term)
        if v is not None:
            return fold.boolean(bool(v & 1))
        return fold.eq(fold.resize(term, 1, False), 1)  # type: ignore[arg-type]

    def same_cond(self, v: IRValue, init: smt.BoolRef | None) -> bool:
        """Is the i1 `v` yielded for the next round provably the condition
        the round began with (`and %flag, true` passes `%flag` on)?"""
        return init is not None and type_text(v) == "i1" and self.cond(v) is init

    def same_value(self, v: IRValue, init: smt.ArithRef, stored: smt.ArithRef | None) -> bool:
        """Is the value `v` yielded for the next round provably the one the
        round began with (passed through, or the same constant)?"""
        term = self.val(v)
        if term is init or term is stored or (
                stored is not None and term.get_id() == stored.get_id()):
            return True
        a, b = literal(term), literal(init)
        return a is not None and a == b and fold.width_of(term) == fold.width_of(init)

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
        back = _Back()  # the next iteration: the one walked stands for it
        inner: Graph = {b: [back if s is header else s for s in succ.get(b, [])] for b in body}
        # The header's arguments hold what the edges into the loop gave them:
        # one that every back edge passes on unchanged keeps it in every
        # round; the others are havoc'd (asked again until none fails).
        inits = [self.env.get(a) for a in header.args]
        init_conds = [self.conds.get(a) for a in header.args]
        kept = {k for k, t in enumerate(inits) if t is not None}
        cells: Cells = {}
        outer_cells = self.carried_cells
        while True:
            self.enter_cells(snap, cells, guard, outer_cells)
            for k, a in enumerate(header.args):
                if k not in kept:
                    self.havoc(a, guard, why)
            exits = self.walk_cfg(body, inner, guard, scope)
            failed = {k for e, ops in exits.get(back, []) if e is not fold.FALSE
                      for k in kept if k >= len(ops)
                      or not (self.same_value(ops[k], inits[k], inits[k])  # type: ignore[arg-type]
                              or self.same_cond(ops[k], init_conds[k]))}
            grown = self.loop_cells(snap, cells)
            if grown is None:
                break  # a slot's cell that is no integer: the effect check refuses
            if not failed and grown == cells:
                break
            kept -= failed
            cells = grown
            self.restore(snap)
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
        # The round the loop leaves by: the walked round's terms with its own
        # values renamed (the exit round is not the round whose events the
        # walk recorded), so a value read after the loop keeps the exit
        # condition's relation to it (`%i sge %n` after `%i slt %n` failed).
        copy = self.exit_copy(self.loop_vars[len(snap.state["loop_vars"]):])
        kept_args = {header.args[k] for k in kept}
        for v in defined_in(body) & later:
            if v in kept_args:
                continue  # the same in every round: what it entered with
            term = self.env.get(v)
            if term is None or fold.width_of(term) is None or unknown_vars(term):
                self.havoc(v, guard, why)
                continue
            new = copy(term)
            self.define(v, new, guard)
            if type_text(v) == "i1":
                c = self.conds.get(v)
                self.define_cond(v, copy(c) if c is not None and not unknown_vars(c)
                                 else fold.eq(new, 1), guard)
        self.leave_cells(snap, cells, guard, outer_cells)
        # The loop ends (it has no effect to see, real host loops do): by
        # exactly one of the exits the walked iteration can take, when its
        # condition holds of the exit round.
        rest = guard
        chained: list[Exit] = []
        for k, (e, ops, t) in enumerate(out):
            taken = copy(e) if not unknown_vars(e) else self.true
            if k == len(out) - 1:
                chained.append((conj(rest, taken), ops, t))
            else:
                b = self.loop_branch()
                chained.append((conj(rest, b, taken), ops, t))
                rest = conj(rest, neg(b))
        self.facts.assumptions.append(fold.disj((neg(guard), *(e for e, _, _ in chained))))
        self.facts._explored = None
        return chained

    def exit_copy(self, names: list[smt.ExprRef]) -> Renaming:
        """A renaming of a round's own variables (`names`) to new ones: the
        values of another round, the one the loop leaves by."""
        pairs = []
        for v in names:
            w = fold.width_of(v)
            self.fresh_count += 1
            new: smt.ExprRef
            if w is not None:
                new = fold.bits_var(f"{self.func}:?exit{self.fresh_count}", w)
            elif smt.is_bool(v):  # a branch the round took on a value not followed
                new = fold.branch(f"{self.func}:?exitb{self.fresh_count}")
            else:
                continue
            self.loop_vars.append(new)
            pairs.append((v, new))

        def copy(term: Any) -> Any:
            if not pairs or fold.value_of(term) is not None:
                return term
            out = smt.substitute(term, *pairs)
            if out.eq(term):
                return term
            if smt.is_bool(out):
                return fold.tagged(out, fold.Tags(taint=False))
            return fold.tagged(out, fold.Tags(taint=False, width=fold.width_of(term)))
        return copy

    def walk_cfg(self, blocks: list[IRBlock], succ: Graph, guard: smt.BoolRef,
                 scope: list[IRBlock]) -> Exits:
        raise NotImplementedError

    def block_ops(self, block: IRBlock, guard: smt.BoolRef) -> list[IRValue] | None:
        raise NotImplementedError


def _same_term(a: smt.ExprRef, b: smt.ExprRef) -> bool:
    """The same term, or the same constant of one width."""
    if a is b:
        return True
    la, lb = literal(a), literal(b)
    return la is not None and la == lb and fold.width_of(a) == fold.width_of(b)


class _Back:
    """The target standing for a summarized loop's back edges."""

