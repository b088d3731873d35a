"""Source facts read from a parsed source module, any valid MLIR as written.

The reader walks the host code of every `func.func` with a body (generic
form objects: xDSL's, or `verify.ir.fastparse`'s) and records the async GPU
surface `gpu-to-llvm` lowers: `gpu.wait`, `gpu.alloc`, `gpu.dealloc`,
`gpu.memcpy`, `gpu.memset`, `gpu.launch_func` (and an un-outlined
`gpu.launch`), host reads and writes of buffers (`memref.copy`: one host
access of both its buffers; descriptor ops name the buffer they view, see
`verify.source.views`), with the branch conditions
under which each runs.  Every op is keyed by its location (`opN` for a name
location, `file:line:col` for a file one), the key lowered calls carry.

Everything else is read, not refused.  Ops that cannot change a verdict
(arith, index math, `memref.dim`, host `memref.alloc`) are skipped.  Where
the reader cannot follow something, it says so in the facts, and the
checkers it could mislead say `unknown` instead of deciding:
- a token used where the reader does not follow it (a call, a return, a
  region result, `async.*`, an unknown op) *escapes*: whether the work
  behind it is awaited becomes an unknown condition, and the order of that
  function is not decided;
- an unknown op touching a buffer may read or write it on the host, so the
  order of a function with GPU work is not decided;
- code under a condition the reader does not read (a computed `i1`, a loop
  with bounds it cannot fold, a `cf` block past the entry) runs under an
  unknown condition, never a made-up one.

The same branch variables name both sides (`branch_var`): `f0:%cond0` is
the i1 argument `%cond0` of `@f0` in the source and its counterpart in the
lowered function, so a path condition found on the lowered side reads in
source terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.ir.attrs import (
    attr_of,
    callee_name,
    int_tuple,
    int_value,
    type_text,
    where,
)
from gpu_alloc_verify.verify.ir.graph import reachable_facts
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRModule
from gpu_alloc_verify.verify.ir.text import is_plain_value_name
from gpu_alloc_verify.verify.ir.types import memref_text
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.op_specs import BY_KIND, GPU_MODEL_KINDS, INERT_OPS
from gpu_alloc_verify.verify.model.values import source_unknown
from gpu_alloc_verify.verify.source.views import (
    ADDRESS_OF,
    is_address_math,
    is_device_view,
    viewed,
)

# Iterations `verify.extract` unrolls (its default bound): a source loop
# that may run more with gpu work inside is one whose order across
# iterations is not decided.
UNROLLED = 4
# The model's gpu ops (`verify.model.op_specs`): the kinds of ops on streams.
GPU_KINDS = GPU_MODEL_KINDS
HOST_KINDS = ("host.load", "host.store")

# Host ops that touch no GPU state and no buffer contents: nothing to record.
_INERT_PREFIXES = ("arith.", "index.", "math.", "complex.", "llvm.mlir.", "ub.")
_INERT = {
    "func.return", "scf.yield", "scf.condition", "memref.dim", "memref.alloc",
    "memref.alloca", "memref.dealloc", "memref.cast", "memref.subview",
    "memref.reinterpret_cast", "memref.extract_strided_metadata", "memref.rank",
    "memref.view", "memref.collapse_shape", "memref.expand_shape", "memref.get_global",
    "memref.assume_alignment",
    "builtin.unrealized_conversion_cast", "affine.apply", "affine.min", "affine.max",
    "cf.assert", "func.constant",
    # No memory access (uses of their results are followed: `verify.source.views`).
    "memref.memory_space_cast", "memref.extract_aligned_pointer_as_index",
    "memref.transpose",
    # No stream or event: the runtime selects a device, pins host memory.
    *INERT_OPS,
}
_HOST_ACCESS = {"memref.load": "host.load", "memref.store": "host.store",
                "affine.load": "host.load", "affine.store": "host.store"}


@dataclass(frozen=True)
class SourceOp:
    """One op of the source the checkers reason about."""

    id: str  # the location key lowered calls carry
    kind: str  # one of GPU_KINDS or HOST_KINDS
    token: str | None = None  # the token it produces (async ops)
    deps: tuple[str, ...] = ()
    buffers: tuple[str, ...] = ()  # the buffers it reads or writes
    result: str | None = None  # the buffer a gpu.alloc makes
    host_shared: bool = False
    where: str = ""  # `file:line:col` or the name location

    @property
    def is_gpu(self) -> bool:
        return self.kind in GPU_KINDS

    @property
    def is_sync(self) -> bool:
        return self.kind in GPU_KINDS and self.token is None

    @property
    def is_host_access(self) -> bool:
        return self.kind in HOST_KINDS

    def describe(self) -> str:
        spec = BY_KIND.get(self.kind)
        name = (spec.words or spec.mlir) if spec is not None else f"gpu.{self.kind}"
        return f"{name} {self.id}"


def branch_var(func: str, arg: str) -> smt.BoolRef:
    """The branch value of an i1 argument: the same variable on both sides."""
    return fold.branch(f"{func}:{arg}")


@dataclass(frozen=True)
class SourceCall:
    """A `func.call` of a function of the module (with a body): where it sits
    in its caller's host order, and the names of what it passes and gets back,
    so the callee's work can be put in the caller's order (`verify.source.inline`)."""

    id: str | None  # the call's location key: the one lowered code carries
    func: str  # the caller
    callee: str
    position: int  # ops of the caller with a smaller index in `ops` run before it
    guard: smt.BoolRef
    operands: tuple[str | None, ...]
    results: tuple[str | None, ...]


@dataclass
class SourceFacts:
    ops: dict[str, SourceOp] = field(default_factory=dict)  # in program order
    guards: dict[str, smt.BoolRef] = field(default_factory=dict)  # op id -> when it runs
    # op id -> when the token it produces is awaited by a host gpu.wait
    awaited: dict[str, smt.BoolRef] = field(default_factory=dict)
    func_of: dict[str, str] = field(default_factory=dict)
    arg_names: dict[str, list[str]] = field(default_factory=dict)
    # The same arguments as `func-to-llvm` passes them (a ranked memref is
    # 3 + 2 * rank arguments): what the lowered function's arguments are.
    lowered_arg_names: dict[str, list[str]] = field(default_factory=dict)
    # function -> why the order of its work cannot be decided
    order_unknown: dict[str, list[str]] = field(default_factory=dict)
    # host accesses the reader could not see (ops it does not model on buffers)
    hidden_host_access: list[str] = field(default_factory=list)
    unmodelled: list[str] = field(default_factory=list)  # "op at file:line:col"
    # Calls of the module's functions, in walk order; each function's
    # parameters and (for one `func.return`) returned values, by name.
    calls: list[SourceCall] = field(default_factory=list)
    params: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    returns: dict[str, tuple[str | None, ...]] = field(default_factory=dict)

    def sync_allocs(self) -> list[SourceOp]:
        return [op for op in self.ops.values() if op.kind == "alloc" and op.token is None]

    def allocs(self) -> list[SourceOp]:
        return [op for op in self.ops.values() if op.kind == "alloc"]


def read_source(module: IRModule) -> SourceFacts:
    """The facts of a parsed source module (never raises for a valid one)."""
    funcs = [op for op in _top_ops(module)
             if op_name(op) == "func.func" and op.regions and op.regions[0].blocks]
    reader = _Reader({_sym(f): f for f in funcs}, _call_sites(funcs))
    reader.returned = {id(r) for f in funcs if (r := reader.followed_return(f)) is not None}
    for fn in funcs:
        reader.function(fn)
    reader.finish()
    return reader.facts


def lowered_labels(label: str, type_: str) -> list[str]:
    """The labels of the lowered arguments one source argument becomes under
    the LLVM calling convention: a ranked memref is its descriptor's fields
    (allocated, aligned, offset, a size and a stride per dimension), an
    unranked one (rank, descriptor pointer), anything else itself.  Only the
    argument itself keeps the source's label, so a branch on it is the same
    variable on both sides and no descriptor field takes another's name."""
    memref = memref_text(type_)
    if memref is not None:
        rank = len(memref.dims)
        return ([f"{label}.allocated", f"{label}.aligned", f"{label}.offset"]
                + [f"{label}.size{d}" for d in range(rank)]
                + [f"{label}.stride{d}" for d in range(rank)])
    if type_.replace(" ", "").startswith("memref<*"):
        return [f"{label}.rank", f"{label}.descriptor"]
    return [label]


def _sym(fn: Any) -> str:
    return str(getattr(attr_of(fn, "sym_name"), "data", attr_of(fn, "sym_name")))


def _calls_itself(fn: Any) -> bool:
    return any(op_name(op) == "func.call" and callee_name(op) == _sym(fn)
               for b in fn.regions[0].blocks for op in _walk_ops(b))


def _call_sites(funcs: list[Any]) -> dict[str, int]:
    """How many `func.call`s name each function."""
    count: dict[str, int] = {}
    for fn in funcs:
        for block in fn.regions[0].blocks:
            for op in _walk_ops(block):
                if op_name(op) == "func.call":
                    callee = callee_name(op) or ""
                    count[callee] = count.get(callee, 0) + 1
    return count


def _top_ops(module: Any) -> Iterable[Any]:
    """The ops of the module body, and of nested `builtin.module`s."""
    for op in module.body.blocks[0].ops:
        if op_name(op) == "builtin.module" and op.regions and op.regions[0].blocks:
            yield from _top_ops(op)
        else:
            yield op


class _Reader:
    """Names every value it meets (`%tN` tokens, `%mN` buffers); values that
    are provably the same (a parameter and the one operand passed to it, an
    awaited value and the one yielded) share one name through `alias`.
    Awaited conditions are computed once all functions are read."""

    def __init__(self, funcs: dict[str, Any], call_sites: dict[str, int]) -> None:
        self.funcs = funcs
        self.call_sites = call_sites
        self.facts = SourceFacts()
        self.names: dict[Any, str] = {}
        self.parent: dict[str, str] = {}  # union-find over names
        self.arg_label: dict[Any, str] = {}  # entry arguments: their branch-variable label
        self.order: list[SourceOp] = []  # every function's ops, in walk order
        self.escaped: dict[str, str] = {}  # token -> where it escapes
        self.hidden_buffers: dict[str, list[str]] = {}  # function -> places
        self.returned: set[int] = set()  # func.return ops whose values a call follows
        self.flags: dict[str, smt.BoolRef] = {}
        self.consts: dict[Any, int] = {}
        self.count = 0
        self.used: set[str] = set()
        self.inside = 0  # depth inside the regions of ops the reader does not model
        self.addresses: dict[Any, str] = {}  # values holding a buffer's address -> whence
        # Calls, parameters and returns with their values, named in `finish`.
        self.call_values: list[tuple[SourceCall, list[Any], list[Any]]] = []
        self.param_values: dict[str, list[Any]] = {}
        # Calls of module functions `call` does not follow (more than one call
        # site): their buffers are accessed by the callee's own ops, in the
        # callers' order once inlined (`verify.source.inline`), not hidden from it.
        self.inlined_places: set[str] = set()
        self.return_values: dict[str, list[Any]] = {}

    # -- naming ----------------------------------------------------------

    def name(self, value: Any, prefix: str) -> str:
        known = self.names.get(value)
        if known is None:
            self.count += 1
            known = self.names[value] = f"%{prefix}{self.count}"
        return self.find(known)

    def find(self, name: str) -> str:
        while name in self.parent:
            name = self.parent[name]
        return name

    def alias(self, a: Any, b: Any) -> None:
        """`a` and `b` are the same value."""
        x, y = self.name(a, "v"), self.name(b, "v")
        if x != y:
            self.parent[x] = y

    def op_id(self, op: Any) -> str:
        """The op's location key; a fresh `?N` when it has none or shares one."""
        from gpu_alloc_verify.verify.ir.attrs import source_loc

        key = source_loc(op)
        if key is None or key in self.used:
            self.count += 1
            key = f"?{self.count}"
        self.used.add(key)
        return key

    # -- functions and regions ---------------------------------------------

    def function(self, fn: Any) -> None:
        self.func = _sym(fn)
        entry = fn.regions[0].blocks[0]
        labels: list[str] = []
        lowered: list[str] = []
        for i, arg in enumerate(entry.args):
            hint = getattr(arg, "name_hint", None) or getattr(arg, "name", None)
            label = str(hint) if hint else f"%arg{i}"
            if not label.startswith("%"):
                label = "%" + label
            if not is_plain_value_name(label) or label in labels:
                label = f"%arg{i}"
            labels.append(label)
            self.arg_label[arg] = label
            lowered += lowered_labels(label, type_text(arg))
        self.facts.arg_names[self.func] = labels
        self.param_values[self.func] = list(entry.args)
        rets = [o for b in fn.regions[0].blocks for o in b.ops if op_name(o) == "func.return"]
        if len(rets) == 1:
            self.return_values[self.func] = list(rets[0].operands)
        self.facts.lowered_arg_names[self.func] = lowered
        blocks = list(fn.regions[0].blocks)
        for k, b in enumerate(blocks):
            term = list(b.ops)[-1] if list(b.ops) else None
            back = [s for s in (term.successors if term is not None else ())
                    if s in blocks[:k + 1]]
            if back and self.gpu_work(blocks[blocks.index(back[0]):k + 1]):
                self.loop_order_unknown(term)
            self.block(b, fold.TRUE if k == 0 else
                       self.unknown(f"block {k} of @{self.func} (cf branches)"))

    def unknown(self, why: str) -> smt.BoolRef:
        return source_unknown(f"{self.func}:{why}")

    def region(self, region: Any, guard: smt.BoolRef, why: str) -> None:
        for k, b in enumerate(region.blocks):
            self.block(b, guard if k == 0 else fold.conj(guard, self.unknown(why)))

    def block(self, block: Any, guard: smt.BoolRef) -> None:
        for op in block.ops:
            self.op(op, guard)

    # -- ops ---------------------------------------------------------------

    def op(self, op: Any, guard: smt.BoolRef) -> None:
        name = op_name(op)
        if self.addresses:
            self.address_use(op, name)
        for view, buf in viewed(op, name):
            self.alias(view, buf)  # the same buffer, seen through another descriptor
        if name in ADDRESS_OF:
            for r in op.results:
                self.addresses[r] = f"{name} at {where(op)}"
        if name == "memref.copy":
            # A host copy: reads its source and writes its target, in host order.
            self.record(op, "host.store", guard,
                        buffers=tuple(self.name(v, "m") for v in op.operands[:2]))
            return
        if name in ("arith.constant", "llvm.mlir.constant"):
            value = int_value(attr_of(op, "value"))
            if value is not None and op.results:
                self.consts[op.results[0]] = value
            return
        if name in GPU_OPS:
            GPU_OPS[name](self, op, guard)
            return
        if name in _HOST_ACCESS:
            buf = op.operands[0 if name.endswith("load") else 1]
            self.record(op, _HOST_ACCESS[name], guard, buffers=(self.name(buf, "m"),))
            return
        if name == "async.execute":
            self.async_execute(op, guard)
            return
        if name == "async.await":
            for r in op.results:  # the awaited value is the one yielded
                self.alias(r, op.operands[0])
            return
        if name == "func.call" and is_device_view(op) and callee_name(op) not in self.funcs:
            self.flows(op, name)  # a view of its operand's buffer (aliased above)
            return
        if name == "func.call":
            self.note_call(op, guard)
        if name == "func.call" and self.call(op):
            return
        if name == "func.call" and self.external_host_call(op, guard):
            return
        if name == "func.return" and id(op) in self.returned:
            return
        if name == "scf.if":
            self.scf_if(op, guard)
        elif name == "scf.for":
            self.scf_for(op, guard)
        elif name in _INERT or name.startswith(_INERT_PREFIXES):
            self.flows(op, name)
            return
        else:
            self.other(op, name, guard)
            return
        self.flows(op, name)

    def address_use(self, op: Any, name: str) -> None:
        """A buffer's address taken as an integer: arithmetic on it passes it
        on; any other use may access the buffer out of the reader's sight."""
        taken = next((self.addresses[v] for v in op.operands if v in self.addresses), None)
        if taken is None:
            return
        if is_address_math(name):
            for r in op.results:
                self.addresses[r] = taken
        else:
            self.hidden_buffers.setdefault(self.func, []).append(
                f"{name} at {where(op)} (given the address from {taken})")

    def record(self, op: Any, kind: str, guard: smt.BoolRef, **fields: Any) -> SourceOp:
        rec = SourceOp(self.op_id(op), kind, where=where(op), **fields)
        self.facts.guards[rec.id] = guard
        self.facts.func_of[rec.id] = self.func
        self.order.append(rec)
        return rec

    def tokens_in(self, values: Iterable[Any]) -> tuple[str, ...]:
        return tuple(self.name(v, "t") for v in values if _is_token(v))

    def token_out(self, op: Any) -> str | None:
        toks = [r for r in op.results if _is_token(r)]
        return self.name(toks[0], "t") if toks else None

    def flows(self, op: Any, name: str) -> None:
        """Tokens an op passes on without the reader following them escape."""
        for v in op.operands:
            if _is_token(v) or "async." in type_text(v):
                self.escape(v, f"{name} at {where(op)}")
        for r in op.results:
            if _is_token(r) and name not in GPU_OPS:
                self.order_unknown(f"a token comes out of {name} at {where(op)}")

    def escape(self, value: Any, place: str) -> None:
        tok = self.name(value, "t")
        self.escaped.setdefault(tok, place)
        self.order_unknown(f"a token is passed to {place}")

    def order_unknown(self, why: str) -> None:
        self.facts.order_unknown.setdefault(self.func, [])
        if why not in self.facts.order_unknown[self.func]:
            self.facts.order_unknown[self.func].append(why)

    def other(self, op: Any, name: str, guard: smt.BoolRef) -> None:
        """An op the reader does not model: its tokens escape, its buffers
        may be accessed on the host, its regions run an unknown number of
        times (and are read for the GPU ops inside)."""
        place = f"{name} at {where(op)}"
        if not self.inside:  # ops in its regions are its own business
            self.facts.unmodelled.append(place)
        self.flows(op, name)
        if any("memref" in type_text(v) for v in op.operands):
            self.hidden_buffers.setdefault(self.func, []).append(place)
        if name.startswith("gpu.") and name not in ("gpu.module", "gpu.func"):
            self.order_unknown(f"{place} is not modelled")
        if name in ("gpu.module", "gpu.func", "gpu.binary"):
            return  # device code: not host code
        if not op.regions:
            return
        if name == "scf.while" and self.gpu_work(b for r in op.regions for b in r.blocks):
            self.loop_order_unknown(op)
        self.inside += 1
        for region in op.regions:
            self.region(region, fold.conj(guard, self.unknown(f"regions of {place}")),
                        f"blocks of {place}")
        self.inside -= 1

    def scf_if(self, op: Any, guard: smt.BoolRef) -> None:
        cond = op.operands[0]
        label = self.arg_label.get(cond)
        if label is not None and label in self.facts.arg_names.get(self.func, []):
            c = branch_var(self.func, label)
        else:
            c = self.unknown(f"condition of scf.if at {where(op)}")
        self.region(op.regions[0], fold.conj(guard, c), f"scf.if at {where(op)}")
        if len(op.regions) > 1 and op.regions[1].blocks:
            self.region(op.regions[1], fold.conj(guard, fold.neg(c)), f"scf.if at {where(op)}")
        for r in op.results:
            if _is_token(r):
                self.escape(r, f"the results of scf.if at {where(op)}")

    def async_execute(self, op: Any, guard: smt.BoolRef) -> None:
        """Its body runs once, concurrently with the host code after it:
        values flow in and out exactly (same names), the order is not modelled."""
        place = f"async.execute at {where(op)}"
        self.order_unknown(f"{place} runs its body concurrently with the host")
        seg = int_tuple(attr_of(op, "operandSegmentSizes")
                        or attr_of(op, "operand_segment_sizes")) or (0, len(op.operands))
        body = op.regions[0].blocks[0] if op.regions and op.regions[0].blocks else None
        if body is None:
            return
        for arg, value in zip(body.args, op.operands[seg[0]:], strict=False):
            self.alias(arg, value)
        self.inside += 1
        for inner in body.ops:
            if op_name(inner) == "async.yield":
                for r, v in zip(op.results[1:], inner.operands, strict=False):
                    self.alias(r, v)
            else:
                self.op(inner, guard)
        self.inside -= 1

    def followed_return(self, target: Any) -> Any:
        """The one `func.return` of a function with one call site (from
        another function): its values are the call's results.  None otherwise."""
        if self.call_sites.get(_sym(target), 0) != 1 or _calls_itself(target):
            return None
        returns = [o for b in target.regions[0].blocks for o in b.ops
                   if op_name(o) == "func.return"]
        return returns[0] if len(returns) == 1 else None

    def call(self, op: Any) -> bool:
        """A call of a function of the module with this one call site: its
        parameters are the operands and its one `func.return`'s values the
        results (the same values: the reader follows tokens through).
        False for any other call (its tokens escape)."""
        target = self.funcs.get(callee_name(op) or "")
        if target is None or _sym(target) == self.func:
            return False
        ret = self.followed_return(target)
        if ret is None:
            return False
        for param, arg in zip(target.regions[0].blocks[0].args, op.operands, strict=False):
            self.alias(param, arg)
        for r, v in zip(op.results, ret.operands, strict=False):
            self.alias(r, v)
        return True

    def note_call(self, op: Any, guard: smt.BoolRef) -> None:
        """Record a call of a module function with a body (read apart, and put
        in its callers' order by `verify.source.inline`)."""
        from gpu_alloc_verify.verify.ir.attrs import source_loc

        callee = callee_name(op) or ""
        if callee not in self.funcs:
            return
        self.inlined_places.add(f"func.call at {where(op)}")
        rec = SourceCall(source_loc(op), self.func, callee, len(self.order), guard, (), ())
        for v in (*op.operands, *op.results):
            self.name(v, "v")  # one name the callee's activations can meet at
        self.call_values.append((rec, list(op.operands), list(op.results)))

    def gpu_work(self, blocks: Iterable[Any]) -> bool:
        """Do `blocks` (nested regions and the module functions they call
        included) hold a gpu or async op, or a call of code not seen here?"""
        todo, seen = list(blocks), set()
        while todo:
            b = todo.pop()
            for op in _walk_ops(b):
                name = op_name(op)
                if name.startswith(("gpu.", "async.")):
                    return True
                if name == "func.call":
                    callee = callee_name(op) or ""
                    target = self.funcs.get(callee)
                    if target is None:
                        if any(_pointer_like(r) for r in op.results):
                            return True  # it may hand back a token or handle
                    elif callee not in seen:
                        seen.add(callee)
                        todo.extend(target.regions[0].blocks)
        return False

    def loop_order_unknown(self, op: Any) -> None:
        """A loop with gpu work that the analysis may summarize (one iteration
        stands for all, `verify.extract.slicing`): the order of one
        iteration's work against another's is not decided."""
        self.order_unknown(f"the order across iterations of the loop at {where(op)} "
                           f"(gpu work, more than {UNROLLED} iterations)")

    def external_host_call(self, op: Any, guard: smt.BoolRef) -> bool:
        """A call of a function declared, not defined, here (`printMemrefF32`,
        a checker) given buffers: host code that reads and writes them while
        it runs, one point in host order like `memref.copy` (the lowered
        call keeps its location, `verify.extract.calls` lists it there).
        False, and left to `other`, when it takes or returns anything the
        reader would lose track of: a token, an async value, or a memref or
        pointer result that may alias a buffer."""
        callee = callee_name(op)
        if callee is None or callee in self.funcs:
            return False
        if any(_is_token(v) or "async." in type_text(v) for v in op.operands):
            return False
        if any(_pointer_like(r) for r in op.results):
            return False
        bufs = tuple(dict.fromkeys(self.name(v, "m") for v in op.operands
                                   if "memref" in type_text(v)))
        if not bufs:
            return False
        self.record(op, "host.store", guard, buffers=bufs)
        return True

    def scf_for(self, op: Any, guard: smt.BoolRef) -> None:
        lb, ub, step = (self.bound_value(op, v) for v in op.operands[:3])
        if lb is not None and ub is not None and step:
            runs = fold.boolean(ub > lb)
        else:
            known = self.bound_compare(op)
            runs = known if known is not None else \
                self.unknown(f"trip count of scf.for at {where(op)}")
        body = op.regions[0].blocks[0]
        place = f"the loop-carried values of scf.for at {where(op)}"
        # A loop-carried token is, in the first iteration, the initial one, and
        # after the loop the initial one or a token made from it: whoever awaits
        # either awaits the initial token.  So the three share its name.  What
        # the body yields is awaited only if a later iteration or the code
        # after the loop awaits it: that is not followed (it escapes).
        for init, arg, res in zip(op.operands[3:], body.args[1:], op.results, strict=False):
            if _is_token(init):
                self.alias(arg, init)
                self.alias(res, init)
                self.order_unknown(f"a token is carried by {place}")
        trips = -(-(ub - lb) // step) if lb is not None and ub is not None and step else None
        if (trips is None or trips > UNROLLED) and self.gpu_work(op.regions[0].blocks):
            self.loop_order_unknown(op)
        self.region(op.regions[0], fold.conj(guard, runs), f"scf.for at {where(op)}")
        term = next((o for o in body.ops if op_name(o) == "scf.yield"), None)
        for v in (term.operands if term is not None else ()):
            if _is_token(v):
                self.escape(v, place)

    def bound_value(self, op: Any, v: Any) -> int | None:
        """A constant bound or step of `scf.for` `op` as the loop reads it:
        its bits unsigned under `unsigned`, else signed (a printed `i8`
        constant 200 is -56, which the unsigned loop reads as 200)."""
        value = self.consts.get(v)
        t = type_text(v)
        w = 64 if t == "index" else int(t[1:]) if t[:1] == "i" and t[1:].isdigit() else None
        if value is None or w is None:
            return value
        value &= (1 << w) - 1
        return value if attr_of(op, "unsignedCmp") is not None else fold.signed(value, w)

    def bound_compare(self, op: Any) -> smt.BoolRef | None:
        """Whether `scf.for` `op` runs at all, when its bounds are constants
        or integer arguments of the function: the argument is the variable
        the lowered function's argument of that label is (`branch_var`'s
        rule for integers), so a loop whose trip count comes from an
        argument runs in the source exactly when the lowered loop does."""
        ends: list[smt.BitVecRef] = []
        for v in op.operands[:2]:
            t = type_text(v)
            w = 64 if t == "index" else int(t[1:]) if t[:1] == "i" and t[1:].isdigit() else None
            label = self.arg_label.get(v)
            if w is None:
                return None
            if v in self.consts:
                ends.append(fold.bv(self.consts[v], w))
            elif label is not None and label in self.facts.arg_names.get(self.func, []) \
                    and not self.call_sites.get(self.func):
                # Only a function nothing calls: the lowered side names the
                # arguments of its roots alone (a callee's are its caller's).
                ends.append(fold.bits_var(f"{self.func}:{label}", w))
            else:
                return None
        unsigned = attr_of(op, "unsignedCmp") is not None
        return fold.compare(6 if unsigned else 2, ends[0], ends[1])  # ult / slt

    # -- the GPU surface -----------------------------------------------------

    def gpu_wait(self, op: Any, guard: smt.BoolRef) -> None:
        self.record(op, "wait", guard, token=self.token_out(op), deps=self.tokens_in(op.operands))

    def gpu_alloc(self, op: Any, guard: smt.BoolRef) -> None:
        mem = next((r for r in op.results if "memref" in type_text(r)), None)
        shared = attr_of(op, "hostShared") is not None
        self.record(op, "alloc", guard, token=self.token_out(op),
                    deps=self.tokens_in(op.operands), host_shared=shared,
                    result=self.name(mem, "m") if mem is not None else None)

    def gpu_buffer_op(self, op: Any, guard: smt.BoolRef) -> None:
        kind = op_name(op).split(".", 1)[1]
        bufs = tuple(self.name(v, "m") for v in op.operands if "memref" in type_text(v))
        self.record(op, kind, guard, token=self.token_out(op),
                    deps=self.tokens_in(op.operands), buffers=bufs)

    def gpu_launch(self, op: Any, guard: smt.BoolRef) -> None:
        """`gpu.launch_func`, or a `gpu.launch` whose body is device code:
        work on the launch's buffers, ordered by its tokens."""
        bufs = [v for v in op.operands if "memref" in type_text(v)]
        if op_name(op) == "gpu.launch":  # buffers the body uses from outside
            inner: set[Any] = set()
            for region in op.regions:
                for block in region.blocks:
                    inner.update(block.args)
                    for o in _walk_ops(block):
                        inner.update(o.results)
                        bufs.extend(v for v in o.operands
                                    if "memref" in type_text(v) and v not in inner)
        names = tuple(dict.fromkeys(self.name(v, "m") for v in bufs))
        self.record(op, "launch", guard, token=self.token_out(op),
                    deps=self.tokens_in(op.operands), buffers=names)

    # -- after a function ----------------------------------------------------

    def finish(self) -> None:
        """Awaited conditions, over every function: a token is awaited when a
        host wait depends on it, directly or through the tokens of the ops
        that consume it; a token that escapes may be awaited elsewhere."""
        ops = [self.canonical(op) for op in self.order]
        for op in ops:
            self.facts.ops[op.id] = op
        self.name_calls()
        consumers: dict[str, list[SourceOp]] = {}
        for op in ops:
            for dep in op.deps if op.is_gpu else ():
                consumers.setdefault(dep, []).append(op)
        escaped = {self.find(t): place for t, place in self.escaped.items()}

        def own(token: str) -> dict[object, smt.BoolRef]:
            # What awaits `token` itself: an escape, or a host wait on it.
            out: dict[object, smt.BoolRef] = {}
            if token in escaped:
                out[("escape", token)] = self.escape_flag(token, escaped[token])
            for c in consumers.get(token, []):
                if c.token is None and c.kind == "wait":
                    out[("wait", c.id)] = self.facts.guards[c.id]
            return out

        def successors(token: str) -> list[str]:
            return [c.token for c in consumers.get(token, []) if c.token is not None]

        # Awaited where anything it reaches through consuming ops awaits
        # it: reachability, walked without recursion (chains run to
        # thousands of ops, and loops make cycles).
        tokens = [op.token for op in ops if op.is_gpu and op.token is not None]
        reach = reachable_facts(tokens, successors, own)
        for op in ops:
            if op.is_gpu and op.token is not None:
                via = fold.disj(list(reach[op.token].values()))
                self.facts.awaited[op.id] = via if fold.truth(via) is not None else _source(
                    smt.simplify(via))
        with_gpu = self.gpu_related({self.facts.func_of[op.id] for op in ops if op.is_gpu})
        for func, places in self.hidden_buffers.items():
            self.facts.hidden_host_access.extend(places)
            if func in with_gpu:
                self.func = func
                for place in places:
                    if place not in self.inlined_places:
                        self.order_unknown(f"{place} may read or write a buffer on the host")

    def gpu_related(self, gpu: set[str]) -> set[str]:
        """Functions whose host order holds gpu work once calls are inlined
        (`verify.source.inline`): those that call, or are called with, a function
        with gpu ops.  A hidden host access in one is not decided."""
        calls: dict[str, set[str]] = {}
        for rec, _, _ in self.call_values:
            calls.setdefault(rec.func, set()).add(rec.callee)
        out: set[str] = set()
        for f in self.funcs:
            below, todo = {f}, [f]
            while todo:
                for g in calls.get(todo.pop(), ()):
                    if g not in below:
                        below.add(g)
                        todo.append(g)
            if below & gpu:
                out |= below
        return out

    def name_calls(self) -> None:
        """Calls, parameters and returns by their values' final names (None:
        a value no op of the source reads as a token or buffer)."""
        def named(values: list[Any]) -> tuple[str | None, ...]:
            return tuple(self.find(self.names[v]) if v in self.names else None
                         for v in values)

        self.facts.calls = [replace(rec, operands=named(operands), results=named(results))
                            for rec, operands, results in self.call_values]
        self.facts.params = {f: named(vs) for f, vs in self.param_values.items()}
        self.facts.returns = {f: named(vs) for f, vs in self.return_values.items()}

    def canonical(self, op: SourceOp) -> SourceOp:
        """`op` with every name replaced by its alias class's name."""
        return replace(op, token=self.find(op.token) if op.token else None,
                       deps=tuple(self.find(d) for d in op.deps),
                       buffers=tuple(self.find(b) for b in op.buffers),
                       result=self.find(op.result) if op.result else None)

    def escape_flag(self, token: str, place: str) -> smt.BoolRef:
        flag = self.flags.get(token)
        if flag is None:
            flag = self.flags[token] = source_unknown(
                f"whether the token passed to {place} is awaited")
        return flag


GPU_OPS = {
    "gpu.wait": _Reader.gpu_wait,
    "gpu.alloc": _Reader.gpu_alloc,
    "gpu.dealloc": _Reader.gpu_buffer_op,
    "gpu.memset": _Reader.gpu_buffer_op,
    "gpu.memcpy": _Reader.gpu_buffer_op,
    "gpu.launch_func": _Reader.gpu_launch,
    "gpu.launch": _Reader.gpu_launch,
}


def _is_token(value: Any) -> bool:
    return "gpu.async.token" in type_text(value) and "async.value" not in type_text(value)


def _pointer_like(value: Any) -> bool:
    """May `value` point at memory (a buffer, through another descriptor)?"""
    t = type_text(value)
    return any(k in t for k in ("memref", "ptr", "tensor", "gpu.", "async.", "!"))


def _walk_ops(block: Any) -> Iterable[Any]:
    for op in block.ops:
        yield op
        for region in op.regions:
            for b in region.blocks:
                yield from _walk_ops(b)


def _source(term: smt.BoolRef) -> smt.BoolRef:
    """A source-side formula: mentions no value of the lowered code (its
    unknowns are the source's own, tagged as such by `source_unknown`)."""
    if not fold.taint(term):
        return fold.with_taint(term, _has_source_unknown(term))
    return term


def _has_source_unknown(term: smt.ExprRef) -> bool:
    return "!s" in term.sexpr()


__all__ = ["GPU_KINDS", "HOST_KINDS", "SourceCall", "SourceFacts", "SourceOp", "branch_var",
           "read_source"]
