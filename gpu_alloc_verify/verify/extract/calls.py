"""Runtime-call events of a lowered module, with path conditions.

Every SSA value becomes a Z3 term (see `verify.model.values`): a value of
an integer type a bit-vector of its width with LLVM's semantics
(`verify.extract.ints`), any other a Z3 integer: `llvm.mlir.zero` is 0,
each executed `mgpuStreamCreate` / `mgpuEventCreate` a fresh handle, and
values that merge control flow (`llvm.select`, `scf.if` results, block
arguments, assigned in parallel, loop-carried values) become `If` terms.
Each call gets a guard: the conjunction of branch conditions under which
it runs.

Handles are followed where the code puts them: through stack slots
(`llvm.alloca` + `llvm.store` + `llvm.load`, forwarded within a function,
also through `llvm.getelementptr` of a slot), through struct fields
(`llvm.insertvalue` / `llvm.extractvalue`, nested), and into functions of
the same module, which are inlined (up to `MAX_INLINE` deep), also when
called through `llvm.mlir.addressof` of one.
Where a handle leaves what the analysis follows (stored through a pointer it
does not track, passed to an external function or an op it does not model,
returned from a root function) the extractor records an *escape*, a
pseudo-call the checkers read as "may destroy or use it here".  A pointer
it cannot follow back is an unknown value.

Loops (`scf.for`, `scf.while`, back edges of `cf`/`llvm` branches) are
unrolled up to `loop_bound` iterations (`verify.extract.cfg`); the paths
past the bound are *cuts*.  Checkers report violations only on explored
paths and say `unknown` while a cut is reachable: no approximation is
silent.

Calls are listed in an order consistent with execution: if two calls both
run on one path, the earlier-listed one runs first.
"""

from __future__ import annotations

import functools
from typing import Any, cast

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.async_runtime import (
    coroutine_op,
    is_async_runtime,
    is_coroutine_op,
    runtime_call,
)
from gpu_alloc_verify.verify.extract.control import ControlFlow
from gpu_alloc_verify.verify.extract.facts import (
    EXTERNAL_CALL,
    GPU_RUNTIME_OPS,
    HANDLE_CREATORS,
    HOST_ACCESS,
    Call,
    Cut,
    LoweredFacts,
    Residue,
)
from gpu_alloc_verify.verify.extract.ints import ARITH, Integers
from gpu_alloc_verify.verify.extract.leftovers import module_residue
from gpu_alloc_verify.verify.extract.memory import HOST_COPY_FUNCS, HOST_COPY_OPS, Memory, host_copy
from gpu_alloc_verify.verify.extract.state import int_width
from gpu_alloc_verify.verify.ir.attrs import (
    attr_of,
    callee_name,
    func_name,
    has_body,
    int_tuple,
    int_value,
    launch_operands,
    source_loc,
    type_text,
    where,
)
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRModule, IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.fold import ite, lit
from gpu_alloc_verify.verify.model.runtime_api import LAUNCH
from gpu_alloc_verify.verify.model.values import HANDLE_BASE, as_value, literal, may_be_handle

__all__ = ["HANDLE_BASE", "HOST_ACCESS", "Call", "Cut", "LoweredFacts", "Residue",
           "callee_name", "extract", "source_loc"]

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
_HOST_OPS = {"memref.load": "host.load", "memref.store": "host.store",
             "llvm.load": "host.load", "llvm.store": "host.store"}
_COMPARE = {"llvm.icmp", "arith.cmpi"}
_RETURNS = {"llvm.return", "func.return"}
_CALLS = {"llvm.call", "func.call"}
# Ops whose results are never a handle unless an operand is.
_NOOPS = {"llvm.mlir.addressof", "llvm.getelementptr", "memref.dim"}
# C library functions host buffers lower to (`memref.alloc` -> @malloc): they
# neither make nor take a stream or event.
_LIBC = {"malloc", "free", "aligned_alloc", "calloc", "_mlir_memref_to_llvm_alloc",
         "_mlir_memref_to_llvm_free"}
_PRIVATE_LINKAGE = frozenset({"#llvm.linkage<internal>", "#llvm.linkage<private>"})
DEFAULT_LOOP_BOUND = 4
MAX_INLINE = 4


class _Extractor(ControlFlow, Memory, Integers):
    """Walks a lowered module's functions and records what `LoweredFacts` holds."""

    def root(self, op: IROp) -> None:
        self.func = func_name(op)
        self.enter_root()
        entry = op.regions[0].blocks[0]
        names = self.arg_names.get(self.func, [])
        for i, arg in enumerate(entry.args):
            label = names[i] if i < len(names) else f"%arg{i}"
            t = type_text(arg)
            w = int_width(arg)
            if t == "i1":
                self.conds[arg] = fold.branch(f"{self.func}:{label}")
            elif w is not None:
                self.env[arg] = fold.bits_var(f"{self.func}:{label}", w)  # type: ignore[assignment]
            else:
                self.env[arg] = self.fresh()  # the caller's value: not a handle made here
                self.structs[arg] = {(): "data"}
        self.region(op.regions[0], self.true)

    def op(self, op: IROp, guard: smt.BoolRef) -> None:
        name = op_name(op)
        if name in _CALLS:
            self.call(op, guard)
        elif name == "llvm.mlir.zero" or name == "llvm.mlir.null":
            self.define(op.results[0], lit(0), guard)
        elif name in ("llvm.mlir.constant", "arith.constant"):
            self.constant(op, guard)
        elif name in _CASTS and len(op.operands) == 1 and len(op.results) == 1:
            if int_width(op.operands[0]) is None and int_width(op.results[0]) is None:
                self.cast(op, guard)
            else:
                self.int_cast(op, guard)
        elif name in ("llvm.select", "arith.select"):
            c = self.cond(op.operands[0])
            a, b = op.operands[1], op.operands[2]
            self.define(op.results[0], ite(c, self.val(a), self.val(b)), guard)
            if a in self.conds or b in self.conds:
                self.define_cond(op.results[0], ite(c, self.cond(a), self.cond(b)), guard)
        elif name in ARITH and len(op.operands) == 2:
            self.arith(op, guard, ARITH[name])
        elif name in _COMPARE and len(op.operands) == 2:
            self.compare(op, guard)
        elif name == "llvm.alloca":
            slot = self.fresh()
            self.slots.add(literal(slot))  # type: ignore[arg-type]
            self.define(op.results[0], slot, guard)
        elif name in ("llvm.store", "llvm.load") and self.memory(op, guard):
            pass
        elif name == "llvm.getelementptr" and self.gep(op, guard):
            pass
        elif name == "llvm.mlir.addressof" and self.address_of(op, guard):
            pass
        elif name in ("llvm.mlir.undef", "llvm.mlir.poison"):
            self.define(op.results[0], self.fresh(), guard)
            self.structs[op.results[0]] = {(): "undef"}
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
        elif name == LAUNCH and self.launch(op, guard):
            pass
        elif name == "async.execute" and op.regions and len(op.regions[0].blocks) == 1:
            self.async_execute(op, guard)
        elif name == "async.await":
            for r in op.results:
                self.define(r, self.val(op.operands[0]), guard)
        elif is_coroutine_op(name):
            coroutine_op(self, op, guard)
        elif name in GPU_RUNTIME_OPS:
            # A leftover: `lowering-complete` finds it in the module scan.
            self.not_modelled(op, guard, f"{name} left unconverted")
        elif name in _HOST_OPS and source_loc(op) is not None:
            self.host_access(op, guard)
        elif name in HOST_COPY_OPS and source_loc(op) is not None:
            host_copy(self, op, guard)
        elif name in _NOOPS and not any(may_be_handle(self.val(v)) for v in op.operands):
            for r in op.results:
                self.define(r, self.fresh(), guard)
        else:
            self.not_modelled(op, guard, name)

    def not_modelled(self, op: IROp, guard: smt.BoolRef, what: str) -> None:
        """An op the analysis does not model: handles given to it escape, its
        pointer results are unknown, and its regions run an unknown number
        of times (a cut if they do anything the checkers see)."""
        @functools.cache
        def place() -> str:  # put in words only where it is needed, once
            return f"{what} at {where(op)}"

        tainted = self.escape_operands(op, guard, lambda: f"passed to {place()}")
        for r in op.results:
            # A leftover gpu op's token may be a stream or event (its memref
            # is memory); so may a pointer a function we cannot see returns.
            may_carry = tainted or what.startswith("call to @") or (
                what.startswith("gpu.") and "token" in type_text(r))
            self.define(r, self.opaque_result(r, lambda: f"result of {place()}", may_carry),
                        guard)
            if type_text(r) == "i1":
                self.define_cond(r, self.new_branch(op), guard)
        if op.regions and op_name(op) != "gpu.launch":  # a kernel body is device code
            before = len(self.facts.calls)
            for region in op.regions:
                if region.blocks:
                    self.region(region, guard)
            if len(self.facts.calls) != before:
                self.cut(guard, f"the regions of {place()} run an unknown number of times")

    def launch(self, op: IROp, guard: smt.BoolRef) -> bool:
        """A converted `gpu.launch_func`: kernel work on the stream given as
        its async object (the last operand segment), or synchronous work
        when it has none.  False for one still on tokens (left unconverted)."""
        if any("gpu.async.token" in type_text(v) for v in [*op.operands, *op.results]):
            return False
        parts = launch_operands(op)
        if parts is None:
            return False
        # Kernel arguments are not escapes: device code can neither destroy
        # nor use a host's stream or event handle.
        args = (self.val(parts.stream),) if parts.stream is not None else ()
        self.facts.calls.append(Call(len(self.facts.calls), self.func, LAUNCH, args, guard,
                                     source_loc(op), iters=self.iters, sites=self.sites()))
        return True

    def async_execute(self, op: IROp, guard: smt.BoolRef) -> None:
        """The body runs once: handles flow in through its operands and out
        through `async.yield` (when it runs is the source's concern: the
        source reader leaves the order of such code undecided)."""
        seg = int_tuple(attr_of(op, "operandSegmentSizes")
                        or attr_of(op, "operand_segment_sizes")) or (0, len(op.operands))
        body = op.regions[0].blocks[0]
        for arg, value in zip(body.args, op.operands[seg[0]:], strict=False):
            self.define(arg, self.val(value), guard)
        yielded = self.block_ops(body, guard) or []
        if op.results:
            self.define(op.results[0], self.fresh(), guard)  # the !async.token
        for r, v in zip(op.results[1:], yielded, strict=False):
            self.define(r, self.val(v), guard)

    def constant(self, op: IROp, guard: smt.BoolRef) -> None:
        value = int_value(attr_of(op, "value"))
        result = op.results[0]
        w = int_width(result)
        if value is None or w is None:
            self.define(result, self.fresh_for(result), guard)  # a float, a vector
            return
        self.define(result, as_value(fold.bv(value, w)), guard)
        if w == 1:
            self.define_cond(result, fold.boolean(bool(value & 1)), guard)

    def address_of(self, op: IROp, guard: smt.BoolRef) -> bool:
        """`llvm.mlir.addressof` of a function: a pointer a call through it
        resolves to that function; of a global that may hold a pointer: its
        slot.  False for another global."""
        attr = attr_of(op, "global_name")
        root = getattr(attr, "root_reference", attr)
        name = str(getattr(root, "data", root)).lstrip("@")
        slot = self.global_slot(name)
        if slot is not None:
            self.define(op.results[0], lit(slot), guard)
            return True
        if name not in self.funcs:
            return False
        ptr = self.fresh()
        self.fn_ptrs[literal(ptr)] = name  # type: ignore[index]
        self.define(op.results[0], ptr, guard)
        return True

    def cast(self, op: IROp, guard: smt.BoolRef) -> None:
        src, res = op.operands[0], op.results[0]
        if src in self.conds:
            self.define_cond(res, self.conds[src], guard)
        value = self.val(src)
        self.define(res, value, guard)
        if src in self.structs:
            self.structs[res] = self.structs[src]
        elif not may_be_handle(value):
            self.structs[res] = {(): "data"}  # e.g. a memref's descriptor: no handle in it

    # -- memory and structs --------------------------------------------------
    def call(self, op: IROp, guard: smt.BoolRef) -> None:
        callee = callee_name(op)
        operands = list(op.operands)
        sizes = int_tuple(attr_of(op, "operandSegmentSizes"))
        if sizes:
            operands = operands[:sizes[0]]  # not the operand bundles
        if callee is None:
            fn = literal(self.val(operands[0])) if operands else None
            callee = self.fn_ptrs.get(fn) if fn is not None else None
            if callee is None:
                self.unresolved_call(op, guard)
                return
            operands = operands[1:]  # through `llvm.mlir.addressof @callee`
        target = self.funcs.get(callee)
        if target is not None and has_body(target) and callee not in self.inlining \
                and len(self.inlining) < MAX_INLINE:
            self.inline(op, target, guard, operands)
            return
        if is_async_runtime(callee) and (target is None or not has_body(target)):
            runtime_call(self, op, guard, callee, operands)  # verify.extract.async_runtime
            return
        if callee in HOST_COPY_FUNCS and (target is None or not has_body(target)) \
                and source_loc(op) is not None:
            host_copy(self, op, guard)
            return
        if callee in _LIBC and (target is None or not has_body(target)):
            # The C library's allocator: a fresh pointer, never a handle.
            for r in op.results:
                self.define(r, self.fresh("r"), guard)
            return
        if not callee.startswith("mgpu"):
            if target is not None and has_body(target):
                # Code of this module the analysis did not follow.
                why = "recursion" if callee in self.inlining else \
                    f"calls nested deeper than {MAX_INLINE}"
                self.cut(guard, f"call to @{callee} at {where(op)} not followed ({why})")
                self.not_modelled(op, guard, f"call to @{callee} ({why})")
            else:
                # Code not seen may read and write the globals.
                self.globals_escape(guard, f"at the call to @{callee}", let_go=True)
                self.not_modelled(op, guard, f"call to @{callee} (external function)")
                loc = source_loc(op)
                if self.inlining and callee == f"_mlir_ciface_{self.inlining[-1]}":
                    # The C-interface wrapper of a declaration: it carries the
                    # declaration's location, the call is its caller's.
                    loc = self.call_sites[-1]
                if loc is not None:
                    # Host code given the source call's buffers reads and
                    # writes them while it runs: one point in host order,
                    # paired with the source's call (`verify.source.facts`).
                    self.facts.calls.append(Call(len(self.facts.calls), self.func,
                                                 "host.store", (), guard, loc,
                                                 iters=self.iters, sites=self.sites(),
                                                 note=f"{EXTERNAL_CALL} @{callee}"))
            return
        from gpu_alloc_verify.verify.model.runtime_api import roles

        args = tuple(self.val(a) for a in operands)
        if callee == "mgpuMemAlloc" and len(args) == 2 and "ptr" in type_text(operands[1]):
            # LLVM 16's mgpuMemAlloc(size, stream): device memory, no flag.
            args = (*args, as_value(fold.bv(0, 8)))
        # A handle given as an integer: the pointer it is the address of.
        sig = roles(callee, len(args)) or ()
        args = tuple(self.coerce(a, None, lambda: f"a handle argument of @{callee}")
                     if i < len(sig) and sig[i] in ("stream", "event")
                     and fold.width_of(a) is not None else a
                     for i, a in enumerate(args))
        call = Call(len(self.facts.calls), self.func, callee, args, guard, source_loc(op),
                    iters=self.iters, sites=self.sites(),
                    arity=len(operands) if len(operands) != len(args) else None)
        if callee in HANDLE_CREATORS:
            call.handle = self.next_handle
            self.next_handle += 1
            self.facts.handles[call.handle] = (HANDLE_CREATORS[callee], call)
            if op.results:  # declared void: the handle is made, and no one holds it
                self.define(op.results[0], lit(call.handle), guard)
        else:
            if roles(callee, len(args)) is None:
                # A runtime entry point the checkers do not know: what it does
                # with a handle is not modelled.
                for a in args:
                    self.escape(a, guard, f"passed to @{callee}", source_loc(op))
            for r in op.results:
                self.define(r, self.fresh("r"), guard)
        self.facts.calls.append(call)

    def unresolved_call(self, op: IROp, guard: smt.BoolRef) -> None:
        """A call through a pointer that is no known function: it may destroy
        or use what it is given (escapes) and create handles not seen."""
        place = where(op)
        self.globals_escape(guard, f"at the call through a pointer at {place}", let_go=True)
        self.facts.hidden_creates.append(Cut(guard, f"a call through a function pointer at "
                                                    f"{place} the analysis cannot resolve "
                                                    f"may create streams and events"))
        self.not_modelled(op, guard, "call to @<unresolved function pointer>")

    def inline(self, op: IROp, target: IROp, guard: smt.BoolRef, operands: list[IRValue]) -> None:
        entry = target.regions[0].blocks[0]
        for param, arg in zip(entry.args, operands, strict=False):
            self.define(param, self.val(arg), guard)
            if arg in self.conds or type_text(param) == "i1":
                self.define_cond(param, self.cond(arg), guard)
            if arg in self.structs:
                self.structs[param] = self.structs[arg]
        self.inlining.append(func_name(target))
        self.call_sites.append(source_loc(op))
        self.returns.append([])
        self.region(target.regions[0], guard)
        rets = self.returns.pop()
        self.call_sites.pop()
        self.inlining.pop()
        for i, r in enumerate(op.results):
            fields = merged_fields([(g, st[i]) for g, v, _, st in rets if i < len(v)])
            if fields is not None:
                self.structs[r] = fields  # a struct the helper built: its fields
            vals = [(g, v[i], c[i]) for g, v, c, _ in rets if i < len(v)]
            if not vals:
                self.define(r, self.fresh(), guard)
                continue
            term = vals[-1][1]
            c = vals[-1][2]
            for g, v, cv in reversed(vals[:-1]):
                term = ite(g, v, term)
                c = ite(g, cv, c)
            self.define(r, term, guard)
            if type_text(r) == "i1":
                self.define_cond(r, c, guard)

    def ret(self, op: IROp, guard: smt.BoolRef) -> None:
        if self.returns:
            self.returns[-1].append((guard, [self.val(v) for v in op.operands],
                                     [self.cond(v) if type_text(v) == "i1" else fold.FALSE
                                      for v in op.operands],
                                     [self.structs.get(v) for v in op.operands]))
            return
        for v in op.operands:
            self.escape(self.val(v), guard, f"returned from @{self.func}", source_loc(op))
        self.globals_escape(guard, f"when @{self.func} returns", let_go=False)

    def host_access(self, op: IROp, guard: smt.BoolRef) -> None:
        name = op_name(op)
        if name == "llvm.store" or name == "memref.store":
            self.escape(self.val(op.operands[0]), guard, f"stored to memory at "
                        f"{source_loc(op)}", source_loc(op))
        self.facts.calls.append(Call(len(self.facts.calls), self.func, _HOST_OPS[name], (),
                                     guard, source_loc(op), iters=self.iters, sites=self.sites()))
        for r in op.results:
            self.define(r, self.opaque_result(r, f"{name} at {source_loc(op)}", True), guard)
            if type_text(r) == "i1":
                self.define_cond(r, self.new_branch(op), guard)

    # -- structured control flow ----------------------------------------------

def pointer_like_type(t: str) -> bool:
    """Can a global of type `t` hold a pointer (not an array of data)?"""
    return "ptr" in t and not t.startswith("!llvm.array")


# The fields of a struct an inlined helper returns, by position path.
StructFields = dict[tuple[int, ...], Any]


def merged_fields(rets: list[tuple[smt.BoolRef, StructFields | None]]
                  ) -> StructFields | None:
    """The fields of a struct an inlined function returns, each the value of
    the return taken (by its guard); None unless every return gives a struct
    the walk built with the same positions and the same kind of fields."""
    if not rets or any(st is None for _, st in rets):
        return None
    first = cast("dict[tuple[int, ...], Any]", rets[-1][1])
    out: dict[tuple[int, ...], Any] = {}
    for pos, last in first.items():
        parts = [(g, cast("dict[tuple[int, ...], Any]", st).get(pos)) for g, st in rets]
        if any(v is None or isinstance(v, str) != isinstance(last, str) for _, v in parts):
            return None
        if isinstance(last, str):
            if any(v != last for _, v in parts):
                return None
            out[pos] = last
            continue
        term = last
        for g, v in reversed(parts[:-1]):
            term = ite(g, v, term)
        out[pos] = term
    if any(set(cast("dict[tuple[int, ...], Any]", st)) != set(first) for _, st in rets):
        return None
    return out


def extract(module: IRModule, arg_names: dict[str, list[str]] | None = None,
            loop_bound: int = DEFAULT_LOOP_BOUND) -> LoweredFacts:
    """Facts of a lowered module (xDSL's or `verify.ir.fastparse`'s objects);
    `arg_names` gives source names of args.  Every function no other
    function of the module calls is a root; the others are inlined."""
    funcs = {func_name(op): op for op in module.body.blocks[0].ops
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
                        if name is not None and name in funcs and name != func_name(fn):
                            called.add(name)
                    for r in o.regions:
                        for b in r.blocks:
                            stack.extend(b.ops)
    roots = [f for n, f in funcs.items() if has_body(f) and n not in called]
    if not roots:  # every function is called by another: each is a root
        roots = [f for f in funcs.values() if has_body(f)]
    ex = _Extractor(arg_names or {}, loop_bound, funcs)
    globals_ = [op for op in module.body.blocks[0].ops if op_name(op) == "llvm.mlir.global"]
    ex.pointer_globals = {func_name(op) for op in globals_ if pointer_like_type(
        str(getattr(attr_of(op, "global_type"), "type", attr_of(op, "global_type"))))}
    if len(roots) == 1:
        ex.private_globals = {func_name(op) for op in globals_
                              if str(attr_of(op, "linkage")) in _PRIVATE_LINKAGE}
    for fn in roots:
        ex.root(fn)
    ex.facts.residue = module_residue(module)  # a fact of the module, not of paths
    return ex.facts
