"""Runtime-call events of a lowered module, with path conditions.

Every SSA value becomes a Z3 integer term (see `verify.extract_values`):
`llvm.mlir.zero` is 0, each executed `mgpuStreamCreate` / `mgpuEventCreate`
a fresh handle, integer constants their value, integer arithmetic and
comparisons Z3 arithmetic, casts pass their operand through, and values
that merge control flow (`llvm.select`, `scf.if` results, block arguments,
loop-carried values) become `If` terms.  Each call gets a guard: the
conjunction of branch conditions under which it runs.

Handles are followed where the code puts them: through stack slots
(`llvm.alloca` + `llvm.store` + `llvm.load`, forwarded within a function),
through struct fields (`llvm.insertvalue` / `llvm.extractvalue`), and into
functions of the same module, which are inlined (up to `MAX_INLINE` deep).
Where a handle leaves what the analysis follows (stored through a pointer it
does not track, passed to an external function or an op it does not model,
returned from a root function) the extractor records an *escape*, a
pseudo-call the checkers read as "may destroy or use it here".  A pointer
it cannot follow back is an unknown value.

Loops (`scf.for`, `scf.while`, back edges of `cf`/`llvm` branches) are
unrolled up to `loop_bound` iterations (`verify.extract_cfg`); the paths
past the bound are *cuts*.  Checkers report violations only on explored
paths and say `unknown` while a cut is reachable: no approximation is
silent.

Calls are listed in an order consistent with execution: if two calls both
run on one path, the earlier-listed one runs first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import z3

from verify import extract_cfg, fold
from verify.extract_values import HANDLE_BASE, UNKNOWN_PREFIX, literal, may_be_handle
from verify.fold import conj, ite, lit, neg
from verify.lowered_ir import op_name

__all__ = ["HANDLE_BASE", "Call", "Cut", "LoweredFacts", "Residue", "extract"]

HANDLE_CREATORS = {"mgpuStreamCreate": "stream", "mgpuEventCreate": "event"}
GPU_RUNTIME_OPS = {"gpu.alloc", "gpu.dealloc", "gpu.wait", "gpu.memcpy", "gpu.memset"}
ESCAPE = "<escape>"
_CASTS = {
    "builtin.unrealized_conversion_cast",
    "llvm.bitcast",
    "llvm.addrspacecast",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "arith.index_cast",
    "arith.index_castui",
    "llvm.zext",
    "llvm.sext",
    "llvm.trunc",
    "arith.extui",
    "arith.extsi",
    "arith.trunci",
}
# Host reads and writes of buffers are listed among the calls: they are
# points in host order that async-order needs.
HOST_ACCESS = ("host.load", "host.store")
_HOST_OPS = {"memref.load": "host.load", "memref.store": "host.store",
             "llvm.load": "host.load", "llvm.store": "host.store"}
_ARITH = {"llvm.add": "+", "arith.addi": "+", "llvm.sub": "-", "arith.subi": "-",
          "llvm.mul": "*", "arith.muli": "*"}
_COMPARE = {"llvm.icmp", "arith.cmpi"}
_RETURNS = {"llvm.return", "func.return"}
_CALLS = {"llvm.call", "func.call"}
# Ops whose results are never a handle unless an operand is.
_NOOPS = {"llvm.mlir.addressof", "llvm.getelementptr", "memref.dim"}
_LOC_RE = re.compile(r'loc\("([^"]*)"')
DEFAULT_LOOP_BOUND = 4
MAX_INLINE = 4


@dataclass
class Call:
    index: int
    func: str
    callee: str
    args: tuple[z3.ArithRef, ...]
    guard: z3.BoolRef
    source_op: str | None
    handle: int | None = None  # the handle this call creates, if any
    iters: tuple[int, ...] = ()  # iteration numbers of the enclosing unrolled loops
    note: str = ""  # an escape: where the value went
    flags: tuple[z3.BoolRef, z3.BoolRef] | None = None  # an escape: (destroys, uses)

    @property
    def is_host_access(self) -> bool:
        return self.callee in HOST_ACCESS

    @property
    def is_escape(self) -> bool:
        return self.callee == ESCAPE


@dataclass
class Residue:
    """A gpu runtime op or a `!gpu.async.token` value left by the lowering."""

    what: str
    func: str
    source_op: str | None
    guard: z3.BoolRef


@dataclass
class Cut:
    """Paths the extractor did not explore, and why."""

    guard: z3.BoolRef
    reason: str


@dataclass
class LoweredFacts:
    calls: list[Call] = field(default_factory=list)
    handles: dict[int, tuple[str, Call]] = field(default_factory=dict)
    residue: list[Residue] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    unknown_values: set[int] = field(default_factory=set)  # distinct non-handle stand-ins
    unknowns: dict[str, str] = field(default_factory=dict)  # "?n" -> what produced it
    _explored: z3.BoolRef | None = None

    @property
    def notes(self) -> list[str]:
        return [c.reason for c in self.cuts]

    @property
    def explored(self) -> z3.BoolRef:
        """The paths every loop and call was followed on to the end."""
        if self._explored is None:
            self._explored = conj(*(neg(c.guard) for c in self.cuts))
        return self._explored

    def handles_of(self, kind: str) -> Iterable[tuple[int, Call]]:
        return ((h, c) for h, (k, c) in self.handles.items() if k == kind)

    def calls_to(self, *callees: str) -> list[Call]:
        return [c for c in self.calls if c.callee in callees]

    def escapes(self) -> list[Call]:
        return [c for c in self.calls if c.is_escape]


def source_loc(op: Any) -> str | None:
    loc = getattr(op, "location", None)
    if loc is None:
        return None
    m = _LOC_RE.search(str(loc))
    return m.group(1) if m else None


_FILE_LOC_RE = re.compile(r'loc\("([^"]*)":(\d+):(\d+)\)')


def where(op: Any) -> str:
    """The op's location for a reason text: `name` or `file:line:col`."""
    text = str(getattr(op, "location", "") or "")
    m = _FILE_LOC_RE.search(text)
    if m is not None:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    return source_loc(op) or "?"


def _attr(op: Any, name: str) -> Any:
    props = getattr(op, "properties", {}) or {}
    if name in props:
        return props[name]
    return (getattr(op, "attributes", {}) or {}).get(name)


def _int_value(attr: Any) -> int | None:
    value = getattr(attr, "value", None)
    data = getattr(value, "data", None)
    if isinstance(data, bool):
        return int(data)
    if isinstance(data, int):
        return data
    return None


def _int_tuple(attr: Any) -> tuple[int, ...] | None:
    for getter in ("as_tuple", "get_values"):
        fn = getattr(attr, getter, None)
        if fn is not None:
            try:
                return tuple(int(v) for v in fn())
            except (TypeError, ValueError):
                return None
    return None


def callee_name(op: Any) -> str | None:
    attr = _attr(op, "callee")
    if attr is None:
        return None
    root = getattr(attr, "root_reference", None)
    if root is not None:
        return str(root.data)
    text = str(attr)
    return text.lstrip("@") if text else None


def _type_text(value: Any) -> str:
    return str(getattr(value, "type", ""))


def _pointer_like(value: Any) -> bool:
    """Could a value of this type hold a handle?  Pointers, structs of them,
    tokens and types the reader did not give."""
    t = _type_text(value)
    return not t or "ptr" in t or "token" in t or "struct" in t or t.startswith("!")


def _func_name(op: Any) -> str:
    name = _attr(op, "sym_name")
    return str(getattr(name, "data", name))


def _has_body(op: Any) -> bool:
    return bool(op.regions) and bool(op.regions[0].blocks)


class _Extractor:
    def __init__(self, arg_names: dict[str, list[str]], loop_bound: int,
                 funcs: dict[str, Any]) -> None:
        self.arg_names = arg_names
        self.loop_bound = loop_bound
        self.funcs = funcs
        self.facts = LoweredFacts()
        self.env: dict[Any, z3.ArithRef] = {}
        self.conds: dict[Any, z3.BoolRef] = {}
        # Struct values: the fields set here, and what the others are
        # ("undef": never set, "caller": a root's argument, "unknown").
        self.structs: dict[Any, tuple[dict[tuple[int, ...], z3.ArithRef], str]] = {}
        self.mem: dict[int, z3.ArithRef] = {}  # stack slot -> its content
        self.slots: set[int] = set()
        self.escaped_slots: set[int] = set()
        self.fresh_count = 0
        self.next_handle = HANDLE_BASE + 1
        self.func = ""
        self.iters: tuple[int, ...] = ()
        self.inlining: list[str] = []
        self.returns: list[list[tuple[z3.BoolRef, list[z3.ArithRef], list[z3.BoolRef]]]] = []
        self.true = fold.TRUE

    # -- values ------------------------------------------------------------
    def fresh(self, hint: str = "v") -> z3.ArithRef:
        """A value that is provably not a handle: a distinct negative literal."""
        # Far below any constant a program uses, so a stand-in never equals one.
        self.fresh_count += 1
        value = -(HANDLE_BASE + self.fresh_count)
        self.facts.unknown_values.add(value)
        return lit(value)

    def unknown(self, why: str) -> z3.ArithRef:
        """A value the analysis cannot follow: it may be any handle."""
        self.fresh_count += 1
        name = f"{UNKNOWN_PREFIX}{self.fresh_count}"
        self.facts.unknowns[name] = why
        return z3.Int(name)

    def opaque_result(self, value: Any, why: str, tainted: bool) -> z3.ArithRef:
        """The result of something not modelled: unknown if it may carry a
        handle (pointer-like, from handle operands), else distinct."""
        if tainted and _pointer_like(value):
            return self.unknown(why)
        return self.fresh()

    def val(self, ssa: Any) -> z3.ArithRef:
        term = self.env.get(ssa)
        if term is None:
            term = self.fresh()
            self.env[ssa] = term
        return term

    def define(self, ssa: Any, term: z3.ArithRef, guard: z3.BoolRef) -> None:
        # A definition walked again (a loop copy, a second inlining) is kept
        # under its guard: on each path the latest execution's value wins.
        old = self.env.get(ssa)
        self.env[ssa] = term if old is None else ite(guard, term, old)  # type: ignore[assignment]

    def define_cond(self, ssa: Any, term: z3.BoolRef, guard: z3.BoolRef) -> None:
        old = self.conds.get(ssa)
        self.conds[ssa] = term if old is None else ite(guard, term, old)  # type: ignore[assignment]

    def new_branch(self, op: Any) -> z3.BoolRef:
        self.fresh_count += 1
        loc = source_loc(op)
        at = f"@{loc}" if loc else ""
        return fold.branch(f"{self.func}:{op_name(op)}{at}#{self.fresh_count}")

    def cond(self, ssa: Any) -> z3.BoolRef:
        c = self.conds.get(ssa)
        if c is None:
            known = literal(self.env[ssa]) if ssa in self.env else None
            if known is not None and known >= 0:
                return fold.boolean(bool(known))
            self.fresh_count += 1
            c = fold.branch(f"{self.func}:?{self.fresh_count}")
            self.conds[ssa] = c
        return c

    def cut(self, guard: z3.BoolRef, reason: str) -> None:
        if guard is not fold.FALSE:
            self.facts.cuts.append(Cut(guard, f"{reason} (in @{self.func})"))

    def escape(self, value: z3.ArithRef, guard: z3.BoolRef, where: str,
               source_op: str | None) -> None:
        if guard is fold.FALSE or not may_be_handle(value):
            return
        n = len(self.facts.calls)
        flags = (z3.Bool(f"!d{n}"), z3.Bool(f"!u{n}"))
        self.facts.calls.append(Call(n, self.func, ESCAPE, (value,), guard, source_op,
                                     iters=self.iters, note=where, flags=flags))

    def escape_operands(self, op: Any, guard: z3.BoolRef, where: str) -> bool:
        """Escapes for the operands of `op` that may be handles; True if any."""
        any_handle = False
        for v in op.operands:
            term = self.val(v)
            if may_be_handle(term):
                any_handle = True
                self.escape(term, guard, where, source_loc(op))
            self.escape_slot(term, guard, where, source_loc(op))
        return any_handle

    def escape_slot(self, term: z3.ArithRef, guard: z3.BoolRef, where: str,
                    source_op: str | None) -> None:
        """A stack slot whose address leaves what the analysis follows: its
        content escapes with it, and it is not tracked from then on."""
        slot = literal(term)
        if slot is None or slot not in self.slots or slot in self.escaped_slots:
            return
        self.escaped_slots.add(slot)
        content = self.mem.get(slot)
        if content is not None:
            self.escape(content, guard, f"in a stack slot {where}", source_op)

    # -- walking -----------------------------------------------------------
    def root(self, op: Any) -> None:
        self.func = _func_name(op)
        entry = op.regions[0].blocks[0]
        names = self.arg_names.get(self.func, [])
        for i, arg in enumerate(entry.args):
            label = names[i] if i < len(names) else f"%arg{i}"
            t = _type_text(arg)
            if t == "i1":
                self.conds[arg] = fold.branch(f"{self.func}:{label}")
            elif t in ("index",) or re.fullmatch(r"i\d+", t):
                self.env[arg] = z3.Int(f"{self.func}:{label}")
            else:
                self.env[arg] = self.fresh()  # the caller's value: not a handle made here
                self.structs[arg] = ({}, "caller")
        self.region(op.regions[0], self.true)

    def region(self, region: Any, guard: z3.BoolRef) -> list[Any] | None:
        """Walk a region; returns the operands its terminator yields (if any)."""
        blocks = list(region.blocks)
        if len(blocks) == 1:
            return self.block_ops(blocks[0], guard)
        self.cfg(blocks, guard)
        return None

    def block_ops(self, block: Any, guard: z3.BoolRef) -> list[Any] | None:
        yielded: list[Any] | None = None
        for op in block.ops:
            if op_name(op) in ("scf.yield", "scf.condition"):
                yielded = list(op.operands)
            else:
                self.op(op, guard)
        return yielded

    def cfg(self, blocks: list[Any], guard: z3.BoolRef) -> None:
        succ: dict[Any, list[Any]] = {}
        for b in blocks:
            ops = list(b.ops)
            succ[b] = list(ops[-1].successors) if ops else []
        plan = extract_cfg.plan(blocks, succ, self.loop_bound)
        if plan.failure is not None:
            self.cut(guard, plan.failure)
            return
        incoming: dict[extract_cfg.Node, list[tuple[z3.BoolRef, list[Any]]]] = {}
        outer = self.iters
        for node in plan.order:
            block = node.block
            if node == plan.order[0]:
                g = guard
            else:
                edges = incoming.get(node, [])
                g = fold.disj(e for e, _ in edges)
                if g is fold.FALSE:
                    continue
                for i, arg in enumerate(block.args):  # type: ignore[attr-defined]
                    self.merge_block_arg(arg, [(e, ops[i]) for e, ops in edges if i < len(ops)], g)
            self.iters = (*outer, *node.counters)
            ops = list(block.ops)  # type: ignore[attr-defined]
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

    def merge_block_arg(self, arg: Any, vals: list[tuple[z3.BoolRef, Any]],
                        guard: z3.BoolRef) -> None:
        if not vals:
            self.define(arg, self.fresh(), guard)
            return
        if _type_text(arg) == "i1":
            c = self.cond(vals[-1][1])
            for e, v in reversed(vals[:-1]):
                c = ite(e, self.cond(v), c)  # type: ignore[assignment]
            self.define_cond(arg, c, guard)
        term = self.val(vals[-1][1])
        for e, v in reversed(vals[:-1]):
            term = ite(e, self.val(v), term)  # type: ignore[assignment]
        self.define(arg, term, guard)
        self.structs.pop(arg, None)  # struct fields are not merged

    def edges(self, term: Any, guard: z3.BoolRef) -> list[tuple[z3.BoolRef, list[Any]]]:
        succs = list(term.successors)
        name = op_name(term)
        if name in ("cf.cond_br", "llvm.cond_br") and len(succs) == 2:
            c = self.cond(term.operands[0])
            sizes = _int_tuple(_attr(term, "operandSegmentSizes")) or ()
            rest = list(term.operands[1:])
            if len(sizes) == 3:
                t_ops, f_ops = rest[: sizes[1]], rest[sizes[1]:]
            else:
                n = len(succs[0].args)
                t_ops, f_ops = rest[:n], rest[n:]
            return [(c, t_ops), (neg(c), f_ops)]
        if len(succs) == 1:
            return [(self.true, list(term.operands))]
        # A switch or another multi-way branch: not modelled.
        self.cut(guard, f"{name} at {where(term)} is not modelled")
        return [(fold.FALSE, []) for _ in succs]

    def op(self, op: Any, guard: z3.BoolRef) -> None:
        name = op_name(op)
        if name in _CALLS:
            self.call(op, guard)
        elif name == "llvm.mlir.zero" or name == "llvm.mlir.null":
            self.define(op.results[0], lit(0), guard)
        elif name in ("llvm.mlir.constant", "arith.constant"):
            self.constant(op, guard)
        elif name in _CASTS and len(op.operands) == 1 and len(op.results) == 1:
            self.cast(op, guard)
        elif name in ("llvm.select", "arith.select"):
            c = self.cond(op.operands[0])
            a, b = op.operands[1], op.operands[2]
            self.define(op.results[0], ite(c, self.val(a), self.val(b)), guard)  # type: ignore[arg-type]
            if a in self.conds or b in self.conds:
                self.define_cond(op.results[0], ite(c, self.cond(a), self.cond(b)), guard)  # type: ignore[arg-type]
        elif name in _ARITH and len(op.operands) == 2:
            self.arith(op, guard, _ARITH[name])
        elif name in _COMPARE and len(op.operands) == 2:
            self.compare(op, guard)
        elif name == "llvm.alloca":
            slot = self.fresh()
            self.slots.add(literal(slot))  # type: ignore[arg-type]
            self.define(op.results[0], slot, guard)
        elif name in ("llvm.store", "llvm.load") and self.memory(op, guard):
            pass
        elif name in ("llvm.mlir.undef", "llvm.mlir.poison"):
            self.define(op.results[0], self.fresh(), guard)
            self.structs[op.results[0]] = ({}, "undef")
        elif name == "llvm.insertvalue":
            self.insert_value(op, guard)
        elif name == "llvm.extractvalue":
            self.extract_value(op, guard)
        elif name in _RETURNS:
            self.ret(op, guard)
        elif name == "scf.if":
            self.scf_if(op, guard)
        elif name == "scf.for":
            self.scf_for(op, guard)
        elif name == "scf.while":
            self.scf_while(op, guard)
        elif name in GPU_RUNTIME_OPS:
            self.residue(name, op, guard)
            self.not_modelled(op, guard, f"{name} left unconverted")
        elif name in _HOST_OPS and source_loc(op) is not None:
            self.host_access(op, guard)
        elif name in _NOOPS and not any(may_be_handle(self.val(v)) for v in op.operands):
            for r in op.results:
                self.define(r, self.fresh(), guard)
        else:
            self.not_modelled(op, guard, name)
        if name not in GPU_RUNTIME_OPS:
            for r in op.results:
                if "gpu.async.token" in _type_text(r) and name not in _CASTS:
                    self.residue(f"!gpu.async.token result of {name}", op, guard)

    def not_modelled(self, op: Any, guard: z3.BoolRef, what: str) -> None:
        """An op the analysis does not model: handles given to it escape, its
        pointer results are unknown, and its regions run an unknown number
        of times (a cut if they do anything the checkers see)."""
        place = f"{what} at {where(op)}"
        tainted = self.escape_operands(op, guard, f"passed to {place}")
        for r in op.results:
            self.define(r, self.opaque_result(r, f"result of {place}", tainted
                                              or what.startswith("gpu.")), guard)
            if _type_text(r) == "i1":
                self.define_cond(r, self.new_branch(op), guard)
        if op.regions:
            before = (len(self.facts.calls), len(self.facts.residue))
            for region in op.regions:
                if region.blocks:
                    self.region(region, guard)
            if (len(self.facts.calls), len(self.facts.residue)) != before:
                self.cut(guard, f"the regions of {place} run an unknown number of times")

    def residue(self, what: str, op: Any, guard: z3.BoolRef) -> None:
        self.facts.residue.append(Residue(what, self.func, source_loc(op), guard))

    def constant(self, op: Any, guard: z3.BoolRef) -> None:
        value = _int_value(_attr(op, "value"))
        result = op.results[0]
        if value is None:
            self.define(result, self.fresh("c"), guard)
            return
        self.define(result, lit(value), guard)
        if _type_text(result) == "i1":
            self.define_cond(result, fold.boolean(bool(value)), guard)

    def cast(self, op: Any, guard: z3.BoolRef) -> None:
        src, res = op.operands[0], op.results[0]
        if src in self.conds:
            self.define_cond(res, self.conds[src], guard)
        self.define(res, self.val(src), guard)
        if src in self.structs:
            self.structs[res] = self.structs[src]
        if "gpu.async.token" in _type_text(res):
            self.residue("unresolved cast to !gpu.async.token", op, guard)

    def arith(self, op: Any, guard: z3.BoolRef, sym: str) -> None:
        a, b = self.val(op.operands[0]), self.val(op.operands[1])
        if may_be_handle(a) or may_be_handle(b):
            self.not_modelled(op, guard, op_name(op))
            return
        la, lb = literal(a), literal(b)
        stand_ins = self.facts.unknown_values
        if (la is not None and la in stand_ins) or (lb is not None and lb in stand_ins):
            self.define(op.results[0], self.fresh(), guard)  # arithmetic on a stand-in
        elif la is not None and lb is not None:
            value = la + lb if sym == "+" else la - lb if sym == "-" else la * lb
            self.define(op.results[0], lit(value), guard)
        else:
            term = a + b if sym == "+" else a - b if sym == "-" else a * b
            self.define(op.results[0], term, guard)  # type: ignore[arg-type]

    def compare(self, op: Any, guard: z3.BoolRef) -> None:
        a, b = self.val(op.operands[0]), self.val(op.operands[1])
        pred = _int_value(_attr(op, "predicate"))
        res = op.results[0]
        self.define(res, self.fresh(), guard)
        la, lb = literal(a), literal(b)
        stand_in = any(x is not None and x in self.facts.unknown_values for x in (la, lb))
        handle = any(x is not None and x >= HANDLE_BASE for x in (la, lb))
        c: z3.BoolRef | None = None
        if pred in (0, 1) and (a is b or not stand_in or handle):
            # A stand-in is never a handle, but two stand-ins may be equal.
            c = fold.eq(a, b) if pred == 0 else fold.ne(a, b)
        elif pred is not None and 2 <= pred <= 9 and not stand_in and not handle \
                and not may_be_handle(a) and not may_be_handle(b):
            signed = pred <= 5
            k = pred - 2 if signed else pred - 6
            if la is not None and lb is not None and (signed or min(la, lb) >= 0):
                c = fold.boolean([la < lb, la <= lb, la > lb, la >= lb][k])
            elif signed:
                c = [a < b, a <= b, a > b, a >= b][k]  # type: ignore[assignment]
        self.define_cond(res, c if c is not None else self.new_branch(op), guard)

    # -- memory and structs --------------------------------------------------
    def slot_targets(self, ptr: z3.ArithRef) -> tuple[list[tuple[z3.BoolRef, int]], bool]:
        """(condition, slot) for each tracked slot `ptr` may be, and whether it
        may also point elsewhere."""
        from verify.extract_values import leaves

        out: list[tuple[z3.BoolRef, int]] = []
        elsewhere = False
        for leaf in leaves(ptr):
            s = literal(leaf)
            if s is not None and s in self.slots and s not in self.escaped_slots:
                out.append((fold.eq(ptr, s), s))
            else:
                elsewhere = True
        return out, elsewhere

    def memory(self, op: Any, guard: z3.BoolRef) -> bool:
        """Stores and loads on stack slots; False to treat it as a host access."""
        is_store = op_name(op) == "llvm.store"
        ptr = self.val(op.operands[1] if is_store else op.operands[0])
        targets, elsewhere = self.slot_targets(ptr)
        if not targets:
            if is_store:
                value = self.val(op.operands[0])
                self.escape(value, guard, f"stored through a pointer the analysis does "
                            f"not track at {where(op)}", source_loc(op))
                self.escape_slot(value, guard, f"stored at {where(op)}", source_loc(op))
            if source_loc(op) is not None:
                return False
            if not is_store:
                res = op.results[0]
                why = f"llvm.load at {where(op)} through a pointer the analysis " \
                      "does not track"
                self.define(res, self.opaque_result(res, why, True), guard)
                if _type_text(res) == "i1":
                    self.define_cond(res, self.new_branch(op), guard)
            return True
        if is_store:
            value = self.val(op.operands[0])
            self.escape_slot(value, guard, f"stored at {where(op)}", source_loc(op))
            for c, s in targets:
                self.mem[s] = ite(conj(guard, c), value, self.mem.get(s, lit(0)))  # type: ignore[assignment]
            if elsewhere:
                self.escape(value, conj(guard, neg(fold.disj(c for c, _ in targets))),
                            "stored through a pointer the analysis does not track",
                            source_loc(op))
            return True
        res = op.results[0]
        other = (self.opaque_result(res, f"llvm.load at {where(op)} through a "
                                    "pointer the analysis does not track", True)
                 if elsewhere else lit(0))
        term = other
        for c, s in reversed(targets):
            term = ite(c, self.mem.get(s, self.fresh()), term)  # type: ignore[assignment]
        self.define(res, term, guard)
        return True

    def insert_value(self, op: Any, guard: z3.BoolRef) -> None:
        pos = _int_tuple(_attr(op, "position"))
        if pos is None or len(op.operands) != 2:
            self.not_modelled(op, guard, "llvm.insertvalue")
            return
        container, value = op.operands
        fields, rest = self.structs.get(container, ({}, "unknown"))
        self.structs[op.results[0]] = ({**fields, pos: self.val(value)}, rest)
        self.define(op.results[0], self.fresh(), guard)

    def extract_value(self, op: Any, guard: z3.BoolRef) -> None:
        pos = _int_tuple(_attr(op, "position"))
        fields, rest = self.structs.get(op.operands[0], ({}, "unknown"))
        res = op.results[0]
        if pos is not None and pos in fields:
            self.define(res, fields[pos], guard)
        elif rest in ("undef", "caller"):
            self.define(res, self.fresh(), guard)  # never set here, or the caller's
        else:
            self.define(res, self.opaque_result(
                res, f"llvm.extractvalue at {where(op)} of a struct the analysis "
                "did not build", True), guard)

    # -- calls ---------------------------------------------------------------
    def call(self, op: Any, guard: z3.BoolRef) -> None:
        callee = callee_name(op) or "<indirect>"
        target = self.funcs.get(callee)
        if target is not None and _has_body(target) and callee not in self.inlining \
                and len(self.inlining) < MAX_INLINE:
            self.inline(op, target, guard)
            return
        if not callee.startswith("mgpu"):
            if target is not None and _has_body(target):
                # Code of this module the analysis did not follow.
                why = "recursion" if callee in self.inlining else \
                    f"calls nested deeper than {MAX_INLINE}"
                self.cut(guard, f"call to @{callee} at {where(op)} not followed ({why})")
                self.not_modelled(op, guard, f"call to @{callee} ({why})")
            else:
                self.not_modelled(op, guard, f"call to @{callee} (external function)")
            return
        args = tuple(self.val(a) for a in op.operands)
        call = Call(len(self.facts.calls), self.func, callee, args, guard, source_loc(op),
                    iters=self.iters)
        if callee in HANDLE_CREATORS:
            call.handle = self.next_handle
            self.next_handle += 1
            self.facts.handles[call.handle] = (HANDLE_CREATORS[callee], call)
            self.define(op.results[0], lit(call.handle), guard)
        else:
            from verify.runtime_api import roles

            if roles(callee, len(args)) is None:
                # A runtime entry point the checkers do not know: what it does
                # with a handle is not modelled.
                for a in args:
                    self.escape(a, guard, f"passed to @{callee}", source_loc(op))
            for r in op.results:
                self.define(r, self.fresh("r"), guard)
        self.facts.calls.append(call)

    def inline(self, op: Any, target: Any, guard: z3.BoolRef) -> None:
        entry = target.regions[0].blocks[0]
        for param, arg in zip(entry.args, op.operands, strict=False):
            self.define(param, self.val(arg), guard)
            if arg in self.conds or _type_text(param) == "i1":
                self.define_cond(param, self.cond(arg), guard)
            if arg in self.structs:
                self.structs[param] = self.structs[arg]
        self.inlining.append(_func_name(target))
        self.returns.append([])
        self.region(target.regions[0], guard)
        rets = self.returns.pop()
        self.inlining.pop()
        for i, r in enumerate(op.results):
            vals = [(g, v[i], c[i]) for g, v, c in rets if i < len(v)]
            if not vals:
                self.define(r, self.fresh(), guard)
                continue
            term = vals[-1][1]
            c = vals[-1][2]
            for g, v, cv in reversed(vals[:-1]):
                term = ite(g, v, term)  # type: ignore[assignment]
                c = ite(g, cv, c)  # type: ignore[assignment]
            self.define(r, term, guard)
            if _type_text(r) == "i1":
                self.define_cond(r, c, guard)

    def ret(self, op: Any, guard: z3.BoolRef) -> None:
        if self.returns:
            self.returns[-1].append((guard, [self.val(v) for v in op.operands],
                                     [self.cond(v) if _type_text(v) == "i1" else fold.FALSE
                                      for v in op.operands]))
            return
        for v in op.operands:
            self.escape(self.val(v), guard, f"returned from @{self.func}", source_loc(op))

    def host_access(self, op: Any, guard: z3.BoolRef) -> None:
        name = op_name(op)
        if name == "llvm.store" or name == "memref.store":
            self.escape(self.val(op.operands[0]), guard, f"stored to memory at "
                        f"{source_loc(op)}", source_loc(op))
        self.facts.calls.append(Call(len(self.facts.calls), self.func, _HOST_OPS[name], (),
                                     guard, source_loc(op), iters=self.iters))
        for r in op.results:
            self.define(r, self.opaque_result(r, f"{name} at {source_loc(op)}", True), guard)
            if _type_text(r) == "i1":
                self.define_cond(r, self.new_branch(op), guard)

    # -- structured control flow ----------------------------------------------
    def scf_if(self, op: Any, guard: z3.BoolRef) -> None:
        c = self.cond(op.operands[0])
        then_ops = self.region(op.regions[0], conj(guard, c)) or []
        else_ops: list[Any] = []
        if len(op.regions) > 1 and op.regions[1].blocks:
            else_ops = self.region(op.regions[1], conj(guard, neg(c))) or []
        for i, r in enumerate(op.results):
            t = self.val(then_ops[i]) if i < len(then_ops) else self.fresh()
            e = self.val(else_ops[i]) if i < len(else_ops) else self.fresh()
            self.define(r, ite(c, t, e), guard)  # type: ignore[arg-type]
            if _type_text(r) == "i1":
                tc = self.cond(then_ops[i]) if i < len(then_ops) else self.new_branch(op)
                ec = self.cond(else_ops[i]) if i < len(else_ops) else self.new_branch(op)
                self.define_cond(r, ite(c, tc, ec), guard)  # type: ignore[arg-type]

    def scf_for(self, op: Any, guard: z3.BoolRef) -> None:
        lb, ub, step = (self.val(v) for v in op.operands[:3])
        carried = [self.val(v) for v in op.operands[3:]]
        body = op.regions[0].blocks[0]
        loop = f"loop at {where(op)}"
        ls, ll, lu = literal(step), literal(lb), literal(ub)
        if ls is None or ls <= 0 or any(x is not None and x in self.facts.unknown_values
                                        for x in (ll, lu)):
            self.cut(guard, f"{loop} has a step or bounds the analysis cannot read")
            for r in op.results:
                self.define(r, self.fresh(), guard)
            return

        def runs(i: int) -> z3.BoolRef:
            if ll is not None and lu is not None:
                return fold.boolean(ll + i * ls < lu)
            return lb + i * ls < ub  # type: ignore[return-value, operator]

        for i in range(self.loop_bound + 1):
            ran = runs(i)
            if i == self.loop_bound:
                self.cut(conj(guard, ran), f"{loop} runs more than {self.loop_bound} "
                         "iterations")
                break
            g = conj(guard, ran)
            if g is fold.FALSE:
                break
            iv = lb + i * ls if ll is None else lit(ll + i * ls)
            self.define(body.args[0], iv, g)  # type: ignore[arg-type]
            for arg, v in zip(body.args[1:], carried, strict=False):
                self.define(arg, v, g)
            outer = self.iters
            self.iters = (*outer, i)
            out = self.block_ops(body, g) or []
            self.iters = outer
            carried = [ite(ran, self.val(new), old)  # type: ignore[misc]
                       for new, old in zip(out, carried, strict=False)]
        for r, v in zip(op.results, carried, strict=False):
            self.define(r, v, guard)

    def scf_while(self, op: Any, guard: z3.BoolRef) -> None:
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        args = [self.val(v) for v in op.operands]
        exits: list[tuple[z3.BoolRef, list[z3.ArithRef]]] = []
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
            term = vals[-1][1] if vals else self.fresh()
            for e, v in reversed(vals[:-1]):
                term = ite(e, v, term)  # type: ignore[assignment]
            self.define(r, term, guard)


def extract(module: Any, arg_names: dict[str, list[str]] | None = None,
            loop_bound: int = DEFAULT_LOOP_BOUND) -> LoweredFacts:
    """Facts of a lowered module (xDSL's or `verify.fastparse`'s objects);
    `arg_names` gives source names of args.  Every function no other
    function of the module calls is a root; the others are inlined."""
    funcs = {_func_name(op): op for op in module.body.blocks[0].ops
             if op_name(op) in ("llvm.func", "func.func")}
    called: set[str] = set()
    for fn in funcs.values():
        for region in fn.regions:
            for block in region.blocks:
                stack = list(block.ops)
                while stack:
                    o = stack.pop()
                    if op_name(o) in _CALLS:
                        name = callee_name(o)
                        if name is not None and name in funcs and name != _func_name(fn):
                            called.add(name)
                    for r in o.regions:
                        for b in r.blocks:
                            stack.extend(b.ops)
    roots = [f for n, f in funcs.items() if _has_body(f) and n not in called]
    if not roots:  # every function is called by another: each is a root
        roots = [f for f in funcs.values() if _has_body(f)]
    ex = _Extractor(arg_names or {}, loop_bound, funcs)
    for fn in roots:
        ex.root(fn)
    return ex.facts
