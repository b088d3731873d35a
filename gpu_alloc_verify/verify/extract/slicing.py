"""Slicing: loops whose body has no effect the invariants see are summarized,
not unrolled (`verify.extract.control` asks; this module decides).

A loop is summarized only when both checks pass:

- static (`effect_free`): every op of its body, of nested regions and of
  the module functions it calls (transitively) is one the walker models
  without an effect of its own: no runtime call, no call to a function
  outside the module (the C allocator and `memrefCopy` aside), no call
  through a pointer, no `gpu`/`async` op, no region op other than `scf`'s;
- dynamic (`Slicing.effects_since`): one iteration walked symbolically,
  with every loop-carried value havoc'd, adds nothing but host accesses:
  no escape, no runtime call, no cut, no handle, no store to a tracked
  stack slot (but to an integer cell the summary carries from round to
  round, `verify.extract.summary`), and no handle is carried into the loop.

Host accesses (loads and stores with a source op's location) are what
async-order orders against gpu work; a loop with no gpu op inside runs all
its iterations between the same two runtime calls, so the one iteration
walked stands for all of them in host order and its accesses are kept.
Values the loop defines and later code reads become fresh unknowns.  The
summary assumes the loop terminates (it has no effect the checkers see,
and real host loops do).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import HOST_ACCESS, Words
from gpu_alloc_verify.verify.extract.state import WalkerState, int_width
from gpu_alloc_verify.verify.ir.attrs import callee_name, has_body, pointer_like, type_text
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRBlock, IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.runtime_api import DESTROYERS
from gpu_alloc_verify.verify.model.values import as_value, leaves, literal, may_be_handle

# Functions outside the module a body may call: the C allocator lowered
# memrefs use, and the runner's copy utility (a host access, not a handle).
# Kept in step with `verify.extract.calls._LIBC` and `memory.HOST_COPY_FUNCS`.
PURE_EXTERNALS = frozenset({"malloc", "free", "aligned_alloc", "calloc",
                            "_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_free",
                            "memrefCopy"})
_CALLS = frozenset({"llvm.call", "func.call"})
_REGION_OPS = frozenset({"scf.if", "scf.for", "scf.while"})
# Dialects whose remaining ops the walker models as plain values or memory.
_PURE_PREFIXES = ("arith.", "math.", "index.", "llvm.", "cf.", "scf.", "ub.")
_PURE_OPS = frozenset({"builtin.unrealized_conversion_cast", "memref.load", "memref.store"})
# Never pure, whatever the prefix says: an opaque call or a region op not walked.
_IMPURE = frozenset({"llvm.invoke", "llvm.inline_asm", "scf.execute_region", "scf.parallel",
                     "scf.forall", "llvm.call_intrinsic"})


def nested_ops(blocks: Iterable[IRBlock]) -> Iterator[IROp]:
    """Every op of `blocks` and of the regions under them (no recursion limit)."""
    stack: list[IROp] = []
    for b in blocks:
        stack.extend(reversed(list(b.ops)))
        while stack:
            op = stack.pop()
            yield op
            for region in op.regions:
                for inner in region.blocks:
                    stack.extend(reversed(list(inner.ops)))


def effect_free(blocks: Iterable[IRBlock], funcs: dict[str, IROp],
                memo: dict[str, bool] | None = None) -> bool:
    """The static check: can no op of `blocks` (callees included) have an
    effect the invariants see?  When in doubt, False."""
    memo = {} if memo is None else memo
    for op in nested_ops(blocks):
        name = op_name(op)
        if name in _CALLS:
            callee = callee_name(op)
            if callee is None:
                return False  # through a pointer: any function
            target = funcs.get(callee)
            if target is None or not has_body(target):
                if callee not in PURE_EXTERNALS:
                    return False  # the runtime, or code the analysis cannot see
                continue
            if callee not in memo:
                memo[callee] = False  # recursion: not followed, not summarized
                memo[callee] = effect_free(target.regions[0].blocks, funcs, memo)
            if not memo[callee]:
                return False
        elif name in _IMPURE:
            return False
        elif op.regions and name not in _REGION_OPS:
            return False
        elif name not in _PURE_OPS and not name.startswith(_PURE_PREFIXES):
            return False  # gpu.*, async.*, anything not modelled
    return True


@dataclass
class Snapshot:
    """What a trial walk may change, to undo it (`Slicing.restore`)."""

    state: dict[str, Any]
    mem: dict[int, dict[int, Any]]
    calls: int
    cuts: int
    hidden: int
    order_cuts: int
    handles: int
    returns: list[int]
    assumptions: int = 0


class Slicing(WalkerState):
    """Trial walks of one iteration, their undoing, and havoc."""

    pure_memo: dict[str, bool]
    # Cells of stack slots the summaries being walked carry from round to
    # round (a flag kept in a slot): stores to them are no effect.
    carried_cells: frozenset[tuple[int, int]] = frozenset()

    def loop_is_candidate(self, blocks: Iterable[IRBlock]) -> bool:
        if not hasattr(self, "pure_memo"):
            self.pure_memo = {}
        return effect_free(blocks, self.funcs, self.pure_memo)

    def snapshot(self) -> Snapshot:
        # Containers are copied one level down (the walker replaces struct
        # entries and terms, never changes them in place); slot cells two.
        state = {k: (v.copy() if isinstance(v, dict | set | list) else v)
                 for k, v in vars(self).items() if k not in ("facts", "mem", "pure_memo")}
        f = self.facts
        return Snapshot(state, {s: dict(c) for s, c in self.mem.items()}, len(f.calls),
                        len(f.cuts), len(f.hidden_creates), len(f.order_cuts), len(f.handles),
                        [len(r) for r in self.returns], len(f.assumptions))

    def restore(self, snap: Snapshot) -> None:
        fresh_count = self.fresh_count  # names already given stay given
        for k, v in snap.state.items():
            setattr(self, k, v.copy() if isinstance(v, dict | set | list) else v)
        self.fresh_count = fresh_count
        self.mem = {s: dict(c) for s, c in snap.mem.items()}
        f = self.facts
        del f.calls[snap.calls:]
        del f.cuts[snap.cuts:]
        del f.hidden_creates[snap.hidden:]
        del f.order_cuts[snap.order_cuts:]
        del f.assumptions[snap.assumptions:]
        for h in list(f.handles)[snap.handles:]:
            del f.handles[h]
        f._explored = None
        for r, n in zip(self.returns, snap.returns, strict=False):
            del r[n:]

    def effects_since(self, snap: Snapshot) -> str | None:
        """What the walk since `snap` did that the invariants see, or None."""
        f = self.facts
        for c in f.calls[snap.calls:]:
            if c.callee not in HOST_ACCESS:
                return f"{c.callee} in its body"
        if len(f.cuts) > snap.cuts or len(f.hidden_creates) > snap.hidden:
            return "code in its body the analysis did not follow"
        if len(f.handles) > snap.handles:
            return "a handle made in its body"
        if any(len(r) > n for r, n in zip(self.returns, snap.returns, strict=False)):
            return "a return in its body"
        if self.escaped_slots != snap.state["escaped_slots"]:
            return "a stack slot let go in its body"
        if self.stored_cells(snap, set()):
            return "a store to a tracked stack slot"
        return None

    def stored_cells(self, snap: Snapshot, own: set[int]) -> set[tuple[int, int]]:
        """The cells (slot, byte offset) of slots older than `snap` (and not
        in `own`) whose content changed since, but those a summary carries
        (`carried_cells`: an integer each round may change, havoc'd)."""
        out: set[tuple[int, int]] = set()
        for s, cells in self.mem.items():
            if s in own:
                continue
            old = snap.mem.get(s, {})
            for o in cells.keys() | old.keys():
                if cells.get(o) is not old.get(o) and (s, o) not in self.carried_cells:
                    out.add((s, o))
        return out

    def closed_effects(self, snap: Snapshot, out: Iterable[IRValue]) -> str | None:
        """Why the walk since `snap` is not one iteration of a *closed* loop,
        or None: runtime calls are allowed, but every handle it makes is
        destroyed, if at all, by itself and reaches no value `out` of it
        (yielded, carried, read after the loop), it destroys no handle made
        before it, and it escapes, stores and leaves out nothing.  Then
        every iteration does to the handles what the walked one does (its
        inputs are havoc'd), and no iteration sees another's handles."""
        f = self.facts
        new = set(list(f.handles)[snap.handles:])
        for c in f.calls[snap.calls:]:
            if c.is_escape:
                return f"a handle passed on at {c.source_op}"
            if c.callee in DESTROYERS and c.args and any(
                    literal(leaf) not in new for leaf in leaves(c.args[0])):
                return f"{c.callee} of a handle made before it"
        # Slots the body allocates are its own (an `llvm.alloca` in a loop
        # is new memory each iteration), as long as no pointer to one leaves.
        own = (self.slots - snap.state["slots"]) | {
            d for d, (base, _) in self.derived.items() if base not in snap.state["slots"]}
        for v in out:
            terms = [self.env.get(v), *(t for t in (self.structs.get(v) or {}).values()
                                         if not isinstance(t, str))]
            if any(literal(leaf) in new | own for t in terms if t is not None
                   for leaf in leaves(t)):
                return "a handle or a stack slot of its own carried out of its body"
        if len(f.cuts) > snap.cuts or len(f.hidden_creates) > snap.hidden:
            return "code in its body the analysis did not follow"
        if any(len(r) > n for r, n in zip(self.returns, snap.returns, strict=False)):
            return "a return in its body"
        # A slot the body allocates may be let go (a descriptor handed to a
        # printer): a handle in it would have escaped, which is refused above.
        if self.escaped_slots - snap.state["escaped_slots"] - own:
            return "a stack slot let go in its body"
        if self.stored_cells(snap, own):
            return "a store to a tracked stack slot"
        return None

    def carries_handle(self, values: Iterable[IRValue]) -> bool:
        """Does a value carried into a loop (or a struct field of one) hold a
        handle?  Such a loop is unrolled, not summarized."""
        for v in values:
            term = self.env.get(v)
            if term is not None and may_be_handle(term):
                return True
            fields = self.structs.get(v)
            if fields is not None and any(
                    not isinstance(t, str) and may_be_handle(t) for t in fields.values()):
                return True
        return False

    def havoc(self, ssa: IRValue, guard: smt.BoolRef, why: Words) -> None:
        """`ssa` becomes a value nothing is known of: any integer of its width,
        any pointer (a handle, possibly), a struct of unknown fields.

        An integer is one variable of its own (the value in some iteration,
        chosen like an argument's): every condition on it is a condition on
        that one term, so two branches on it are never taken at odds."""
        w = int_width(ssa)
        if w is not None:
            self.fresh_count += 1
            term = fold.bits_var(f"{self.func}:?iter{self.fresh_count}", w)
            self.loop_vars.append(term)
            self.define(ssa, as_value(term), guard)
            if type_text(ssa) == "i1":
                self.define_cond(ssa, fold.eq(term, 1), guard)
            return
        self.define(ssa, self.unknown(why) if pointer_like(ssa) else self.fresh(), guard)
        self.structs.pop(ssa, None)  # its fields: unknown

    def loop_branch(self) -> smt.BoolRef:
        """A condition nothing is known of (which exit a summarized loop takes)."""
        self.fresh_count += 1
        c = fold.branch(f"{self.func}:?exit{self.fresh_count}")
        self.loop_vars.append(c)
        return c


def defined_in(blocks: Iterable[IRBlock]) -> set[IRValue]:
    """Values the top-level ops and arguments of `blocks` define."""
    out: set[IRValue] = set()
    for b in blocks:
        out.update(b.args)
        for op in b.ops:
            out.update(op.results)
    return out


def used_by(blocks: Iterable[IRBlock]) -> set[IRValue]:
    """Operands of every op of `blocks`, nested ones included."""
    out: set[IRValue] = set()
    for op in nested_ops(blocks):
        out.update(op.operands)
    return out


__all__ = ["PURE_EXTERNALS", "Slicing", "Snapshot", "defined_in", "effect_free",
           "nested_ops", "used_by"]
