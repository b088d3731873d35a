"""Runtime-call events of a lowered module, with path conditions.

Every SSA value becomes a Z3 integer term: `llvm.mlir.zero` is 0, each
executed `mgpuStreamCreate` / `mgpuEventCreate` a fresh positive handle,
integer constants their value, casts pass their operand through, and values
that merge control flow (`llvm.select`, `scf.if` results, block arguments,
loop-carried values) become `If` terms.  Each call gets a guard: the
conjunction of branch conditions under which it runs.  Loops are unrolled to
`loop_bound` iterations; a loop whose trip count is not a constant runs a
symbolic number of times (a Z3 integer), so paths through 0..bound
iterations are all covered.

Calls are listed in an order consistent with execution: if two calls both
run on one path, the earlier-listed one runs first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import z3

from verify import fold
from verify.fold import conj, ite, lit, neg
from verify.lowered_ir import op_name

HANDLE_CREATORS = {"mgpuStreamCreate": "stream", "mgpuEventCreate": "event"}
GPU_RUNTIME_OPS = {"gpu.alloc", "gpu.dealloc", "gpu.wait", "gpu.memcpy", "gpu.memset"}
_CASTS = {
    "builtin.unrealized_conversion_cast",
    "llvm.bitcast",
    "llvm.addrspacecast",
    "arith.index_cast",
    "arith.index_castui",
}
# Host reads and writes of buffers are listed among the calls: they are
# points in host order that async-order needs.
HOST_ACCESS = ("host.load", "host.store")
_HOST_OPS = {"memref.load": "host.load", "memref.store": "host.store",
             "llvm.load": "host.load", "llvm.store": "host.store"}
# Handles are far from any size or constant a program uses.
HANDLE_BASE = 1 << 40
_LOC_RE = re.compile(r'loc\("([^"]*)"')
DEFAULT_LOOP_BOUND = 3


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

    @property
    def is_host_access(self) -> bool:
        return self.callee in HOST_ACCESS


@dataclass
class Residue:
    """A gpu runtime op or a `!gpu.async.token` value left by the lowering."""

    what: str
    func: str
    source_op: str | None
    guard: z3.BoolRef


@dataclass
class LoweredFacts:
    calls: list[Call] = field(default_factory=list)
    handles: dict[int, tuple[str, Call]] = field(default_factory=dict)
    residue: list[Residue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. loops truncated at the bound
    unknown_values: set[int] = field(default_factory=set)  # stand-ins for opaque values

    def handles_of(self, kind: str) -> Iterable[tuple[int, Call]]:
        return ((h, c) for h, (k, c) in self.handles.items() if k == kind)

    def calls_to(self, *callees: str) -> list[Call]:
        return [c for c in self.calls if c.callee in callees]


def source_loc(op: Any) -> str | None:
    loc = getattr(op, "location", None)
    if loc is None:
        return None
    m = _LOC_RE.search(str(loc))
    return m.group(1) if m else None


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


class _Extractor:
    def __init__(self, arg_names: dict[str, list[str]], loop_bound: int) -> None:
        self.arg_names = arg_names
        self.loop_bound = loop_bound
        self.facts = LoweredFacts()
        self.env: dict[Any, z3.ArithRef] = {}
        self.conds: dict[Any, z3.BoolRef] = {}
        self.fresh_count = 0
        self.next_handle = HANDLE_BASE + 1
        self.func = ""
        self.iters: tuple[int, ...] = ()
        # Interned literals: the checkers fold them without calling Z3.
        self.true = fold.TRUE
        self.false = fold.FALSE

    # -- values ------------------------------------------------------------
    def fresh(self, hint: str = "v") -> z3.ArithRef:
        # An unknown value is a distinct negative constant: it never aliases
        # a handle, the null pointer or another unknown value.
        self.fresh_count += 1
        self.facts.unknown_values.add(-self.fresh_count)
        return lit(-self.fresh_count)

    def val(self, ssa: Any) -> z3.ArithRef:
        term = self.env.get(ssa)
        if term is None:
            term = self.fresh()
            self.env[ssa] = term
        return term

    def cond(self, ssa: Any) -> z3.BoolRef:
        c = self.conds.get(ssa)
        if c is None:
            c = fold.branch(f"{self.func}:?{self.fresh_count}")
            self.fresh_count += 1
            self.conds[ssa] = c
        return c

    # -- walking -----------------------------------------------------------
    def function(self, op: Any) -> None:
        name = _attr(op, "sym_name")
        self.func = str(getattr(name, "data", name))
        region = op.regions[0] if op.regions else None
        if region is None or not region.blocks:
            return  # a declaration
        entry = region.blocks[0]
        names = self.arg_names.get(self.func, [])
        for i, arg in enumerate(entry.args):
            label = names[i] if i < len(names) else f"%arg{i}"
            if _type_text(arg) == "i1":
                self.conds[arg] = fold.branch(f"{self.func}:{label}")
            else:
                self.env[arg] = z3.Int(f"{self.func}:{label}")
        self.region(region, self.true)

    def region(self, region: Any, guard: z3.BoolRef) -> list[z3.ArithRef] | None:
        """Walk a region; returns the values its terminator yields (if any)."""
        blocks = list(region.blocks)
        if len(blocks) == 1:
            return self.block_ops(blocks[0], guard)
        self.cfg(blocks, guard)
        return None

    def block_ops(self, block: Any, guard: z3.BoolRef) -> list[z3.ArithRef] | None:
        yielded: list[z3.ArithRef] | None = None
        for op in block.ops:
            if op_name(op) in ("scf.yield", "scf.condition"):
                yielded = [self.val(v) for v in op.operands]
            else:
                self.op(op, guard)
        return yielded

    def cfg(self, blocks: list[Any], guard: z3.BoolRef) -> None:
        # Blocks in order of appearance; edges to earlier blocks are back edges
        # of a loop and are cut (the body is walked once).
        order = {b: i for i, b in enumerate(blocks)}
        incoming: dict[Any, list[tuple[z3.BoolRef, list[Any]]]] = {b: [] for b in blocks}
        guards: dict[Any, z3.BoolRef] = {blocks[0]: guard}
        for block in blocks:
            g = guards.get(block)
            if g is None:
                if not incoming[block]:
                    continue  # unreachable
                g = fold.disj(e for e, _ in incoming[block])
                guards[block] = g
                for i, arg in enumerate(block.args):
                    vals = [(e, ops[i]) for e, ops in incoming[block] if i < len(ops)]
                    self.merge_block_arg(arg, vals)
            ops = list(block.ops)
            for op in ops[:-1] if ops else []:
                self.op(op, g)
            if not ops:
                continue
            term = ops[-1]
            for succ, cond, operands in self.edges(term):
                if order.get(succ, -1) <= order[block]:
                    self.facts.notes.append(f"back edge in {self.func} cut")
                    continue
                incoming[succ].append((conj(g, cond), operands))
            if not term.successors:
                self.op(term, g)

    def merge_block_arg(self, arg: Any, vals: list[tuple[z3.BoolRef, Any]]) -> None:
        if _type_text(arg) == "i1":
            c: z3.BoolRef = self.cond(vals[-1][1]) if vals else self.cond(arg)
            for e, v in reversed(vals[:-1]):
                c = ite(e, self.cond(v), c)
            self.conds[arg] = c
            return
        if not vals:
            return
        term = self.val(vals[-1][1])
        for e, v in reversed(vals[:-1]):
            term = ite(e, self.val(v), term)
        self.env[arg] = term

    def edges(self, term: Any) -> list[tuple[Any, z3.BoolRef, list[Any]]]:
        succs = list(term.successors)
        if op_name(term) in ("cf.cond_br", "llvm.cond_br") and len(succs) == 2:
            c = self.cond(term.operands[0])
            seg = _attr(term, "operandSegmentSizes")
            sizes = list(getattr(seg, "as_tuple", lambda: ())()) if seg is not None else []
            rest = list(term.operands[1:])
            if len(sizes) == 3:
                t_ops, f_ops = rest[: sizes[1]], rest[sizes[1]:]
            else:
                n = len(succs[0].args)
                t_ops, f_ops = rest[:n], rest[n:]
            return [(succs[0], c, t_ops), (succs[1], neg(c), f_ops)]
        return [(s, self.true, list(term.operands)) for s in succs]

    def op(self, op: Any, guard: z3.BoolRef) -> None:
        name = op_name(op)
        if name == "llvm.call":
            self.call(op, guard)
        elif name == "llvm.mlir.zero" or name == "llvm.mlir.null":
            self.env[op.results[0]] = lit(0)
        elif name in ("llvm.mlir.constant", "arith.constant"):
            self.constant(op)
        elif name in _CASTS and len(op.operands) == 1 and len(op.results) == 1:
            src = op.operands[0]
            if src in self.conds:
                self.conds[op.results[0]] = self.conds[src]
            self.env[op.results[0]] = self.val(src)
            if "gpu.async.token" in _type_text(op.results[0]):
                self.residue("unresolved cast to !gpu.async.token", op, guard)
        elif name in ("llvm.select", "arith.select"):
            c = self.cond(op.operands[0])
            self.env[op.results[0]] = ite(c, self.val(op.operands[1]), self.val(op.operands[2]))
        elif name == "scf.if":
            self.scf_if(op, guard)
        elif name == "scf.for":
            self.scf_for(op, guard)
        elif name in ("llvm.func", "func.func"):
            self.function(op)
        elif name in GPU_RUNTIME_OPS:
            self.residue(name, op, guard)
        elif name in _HOST_OPS and source_loc(op) is not None:
            self.facts.calls.append(Call(len(self.facts.calls), self.func, _HOST_OPS[name], (),
                                         guard, source_loc(op), iters=self.iters))
        else:
            for region in op.regions:
                self.region(region, guard)
        if name not in GPU_RUNTIME_OPS:
            for r in op.results:
                if "gpu.async.token" in _type_text(r) and name not in _CASTS:
                    self.residue(f"!gpu.async.token result of {name}", op, guard)

    def residue(self, what: str, op: Any, guard: z3.BoolRef) -> None:
        self.facts.residue.append(Residue(what, self.func, source_loc(op), guard))

    def constant(self, op: Any) -> None:
        value = _int_value(_attr(op, "value"))
        result = op.results[0]
        if value is None:
            self.env[result] = self.fresh("c")
            return
        self.env[result] = lit(value)
        if _type_text(result) == "i1":
            self.conds[result] = self.true if value else self.false

    def call(self, op: Any, guard: z3.BoolRef) -> None:
        callee = callee_name(op) or "<indirect>"
        args = tuple(self.val(a) for a in op.operands)
        call = Call(len(self.facts.calls), self.func, callee, args, guard, source_loc(op),
                    iters=self.iters)
        if callee in HANDLE_CREATORS:
            call.handle = self.next_handle
            self.next_handle += 1
            self.facts.handles[call.handle] = (HANDLE_CREATORS[callee], call)
            self.env[op.results[0]] = lit(call.handle)
        else:
            for r in op.results:
                self.env[r] = self.fresh("r")
        self.facts.calls.append(call)

    def scf_if(self, op: Any, guard: z3.BoolRef) -> None:
        c = self.cond(op.operands[0])
        then_vals = self.region(op.regions[0], conj(guard, c)) or []
        else_vals: list[z3.ArithRef] = []
        if len(op.regions) > 1 and op.regions[1].blocks:
            else_vals = self.region(op.regions[1], conj(guard, neg(c))) or []
        for i, r in enumerate(op.results):
            t = then_vals[i] if i < len(then_vals) else self.fresh()
            e = else_vals[i] if i < len(else_vals) else self.fresh()
            self.env[r] = ite(c, t, e)

    def _const_of(self, ssa: Any) -> int | None:
        term = self.env.get(ssa)
        if term is None:
            return None
        known = fold.value_of(term)
        if known is not None:
            return known
        return term.as_long() if z3.is_int_value(term) else None

    def scf_for(self, op: Any, guard: z3.BoolRef) -> None:
        lb, ub, step = (self._const_of(v) for v in op.operands[:3])
        inits = [self.val(v) for v in op.operands[3:]]
        body = op.regions[0].blocks[0]
        if lb is not None and ub is not None and step:
            trip = max(0, -(-(ub - lb) // step))
            if trip > self.loop_bound:
                self.facts.notes.append(
                    f"loop at {source_loc(op)} unrolled to {self.loop_bound} of {trip} iterations"
                )
            runs = [self.true] * min(trip, self.loop_bound)
        else:
            self.fresh_count += 1
            count = z3.Int(f"{self.func}:trip{self.fresh_count}")
            runs = [count > i for i in range(self.loop_bound)]
            self.facts.notes.append(
                f"loop at {source_loc(op)}: symbolic trip count, paths up to "
                f"{self.loop_bound} iterations"
            )
        carried = inits
        for i, ran in enumerate(runs):
            iv = body.args[0]
            if lb is not None and step:
                self.env[iv] = lit(lb + i * step)
            else:
                self.env[iv] = self.fresh("iv")
            for arg, v in zip(body.args[1:], carried, strict=False):
                self.env[arg] = v
            outer = self.iters
            self.iters = (*outer, i)
            out = self.block_ops(body, conj(guard, ran)) or []
            self.iters = outer
            carried = [ite(ran, new, old) for new, old in zip(out, carried, strict=False)]
        for r, v in zip(op.results, carried, strict=False):
            self.env[r] = v


def extract(module: Any, arg_names: dict[str, list[str]] | None = None,
            loop_bound: int = DEFAULT_LOOP_BOUND) -> LoweredFacts:
    """Facts of a lowered module (xDSL's or `verify.fastparse`'s objects);
    `arg_names` gives source names of args."""
    ex = _Extractor(arg_names or {}, loop_bound)
    for op in module.body.blocks[0].ops:
        if op_name(op) in ("llvm.func", "func.func"):
            ex.function(op)
    return ex.facts
