"""The source module of a `Program` as `verify.ir.fastparse`'s small objects.

`verify.source.facts.read_source` reads generic IR objects, xDSL's or the
fast reader's.  For a generated `Program` the facts used to be read from the
xDSL module `verify.lowerings.xdsl_build.build_module` makes; building that
module (and printing every xDSL type back to text as the reader asks for it)
was most of the cost of a program's source facts.  `light_module` builds the
same module op for op, value for value, in the fast reader's objects: the
same ops in the same order, the same operands (each SSA value one object, used
wherever the xDSL module uses it), result and argument types as the text xDSL
prints for them, the same locations (`loc("opN")` on the program's ops,
`loc(unknown)` elsewhere) and the attributes the reader asks for (`sym_name`,
an integer constant's `value`, `hostShared`).  So `read_source` walks the
same structure and gives the same facts; `tests/source/test_source_read.py` checks
that on generated programs.

Device code (`gpu.module @kernels`) is left empty: the reader never walks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_alloc_verify.verify.ir.fastparse import (
    UNKNOWN_LOC,
    Block,
    IntegerAttr,
    Op,
    OpaqueAttr,
    Region,
    StrAttr,
    Value,
)
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.printer import constants_of

TOKEN = "!gpu.async.token"
_UNIT = OpaqueAttr("unit")  # a unit attribute (`hostShared`), as the fast reader reads one
_locs: dict[str, str] = {}
_types: dict[prog.MemRefType, str] = {}


def _loc(op_id: str) -> str:
    loc = _locs.get(op_id)
    if loc is None:
        loc = _locs[op_id] = f'loc("{op_id}")'
    return loc


def memref_text(t: prog.MemRefType) -> str:
    """The type as xDSL prints it (a memory space as an `i64` integer)."""
    text = _types.get(t)
    if text is None:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in t.shape)
        space = "" if t.space is None else f", {t.space} : i64"
        text = _types[t] = f"memref<{dims}{t.elem}{space}>"
    return text


def _type(t: str | prog.MemRefType) -> str:
    return memref_text(t) if isinstance(t, prog.MemRefType) else t


def _op(name: str, operands: list[Value], result_types: tuple[str, ...] = (),
        loc: str = UNKNOWN_LOC) -> Op:
    op = Op(name)
    op.operands = operands
    op.results = [Value("", t) for t in result_types]
    op.location = loc
    op._props = {}
    op._attrs = {}
    return op


def _region(block: Block | None) -> Region:
    region = Region()
    if block is not None:
        region.blocks.append(block)
    return region


def _block(args: list[Value]) -> Block:
    block = Block(None)
    block.args = args
    block.defined = True
    return block


class _FunctionBuilder:
    """`verify.lowerings.xdsl_build._FunctionBuilder`, in small objects."""

    def __init__(self, fn: prog.Function) -> None:
        self.fn = fn
        self.values: dict[str, Value] = {}
        args = []
        for arg in fn.args:
            value = Value(arg.name, _type(arg.type))
            self.values[arg.name] = value
            args.append(value)
        self.entry = _block(args)
        self.index_consts: dict[int, Value] = {}
        self.value_consts: dict[tuple[int, str], Value] = {}

    def build(self) -> Op:
        self.constants()
        self.body(self.fn.body, self.entry)
        self.entry.ops.append(_op("func.return", [self.values[r.name] for r in self.fn.results]))
        fn = _op("func.func", [])
        fn._props = {"sym_name": StrAttr(self.fn.name)}
        fn.regions = [_region(self.entry)]
        return fn

    def constants(self) -> None:
        index_values, values = constants_of(self.fn)
        for n in sorted(index_values):
            c = _op("arith.constant", [], ("index",))
            c._props = {"value": IntegerAttr(n, "index")}
            self.entry.ops.append(c)
            self.index_consts[n] = c.results[0]
        for value, elem in sorted(values):
            c = _op("arith.constant", [], (elem,))
            if elem not in prog.FLOAT_TYPES:  # a float constant has no integer value
                c._props = {"value": IntegerAttr(value, elem)}
            self.entry.ops.append(c)
            self.value_consts[(value, elem)] = c.results[0]

    def body(self, ops: tuple[prog.Op, ...], block: Block) -> None:
        for op in ops:
            block.ops.append(self.op(op, _loc(op.id)))

    def bind(self, name: str | None, value: Value) -> None:
        if name is not None:
            self.values[name] = value

    def async_op(self, name: str, token: str | None, operands: list[Value], loc: str,
                 results: tuple[str, ...] = ()) -> Op:
        is_async = token is not None
        op = _op(name, operands, (*results, TOKEN) if is_async else results, loc)
        if is_async:
            self.bind(token, op.results[-1])
        return op

    def op(self, op: prog.Op, loc: str) -> Op:
        build = prog.op_handler(_OP_BUILDERS, op, "verify.source.light", "builder")
        return build(self, op, loc)

    def op_wait(self, op: prog.Wait, loc: str) -> Op:
        v = self.values
        return self.async_op("gpu.wait", op.token, [v[n] for n in op.deps], loc)

    def op_alloc(self, op: prog.Alloc, loc: str) -> Op:
        v = self.values
        alloc = self.async_op("gpu.alloc", op.token,
                              [*(v[n] for n in op.deps), *(v[n] for n in op.dyn_sizes)],
                              loc, (memref_text(op.type),))
        if op.host_shared:
            alloc._props = {"hostShared": _UNIT}
        self.bind(op.result, alloc.results[0])
        return alloc

    def op_dealloc(self, op: prog.Dealloc, loc: str) -> Op:
        v = self.values
        return self.async_op("gpu.dealloc", op.token,
                             [*(v[n] for n in op.deps), v[op.memref]], loc)

    def op_memset(self, op: prog.Memset, loc: str) -> Op:
        v = self.values
        return self.async_op("gpu.memset", op.token,
                             [*(v[n] for n in op.deps), v[op.dst],
                              self.value_consts[(op.value, op.type.elem)]], loc)

    def op_memcpy(self, op: prog.Memcpy, loc: str) -> Op:
        v = self.values
        return self.async_op("gpu.memcpy", op.token,
                             [*(v[n] for n in op.deps), v[op.dst], v[op.src]], loc)

    def op_host_store(self, op: prog.HostStore, loc: str) -> Op:
        v = self.values
        idx = [self.index_consts[0]] * len(op.type.shape)
        return _op("memref.store",
                   [self.value_consts[(op.value, op.type.elem)], v[op.memref], *idx],
                   (), loc)

    def op_host_load(self, op: prog.HostLoad, loc: str) -> Op:
        v = self.values
        idx = [self.index_consts[0]] * len(op.type.shape)
        load = _op("memref.load", [v[op.memref], *idx], (op.type.elem,), loc)
        self.bind(op.result, load.results[0])
        return load

    def op_host_alloc(self, op: prog.HostAlloc, loc: str) -> Op:
        v = self.values
        halloc = _op("memref.alloc", [v[n] for n in op.dyn_sizes],
                     (memref_text(op.type),), loc)
        self.bind(op.result, halloc.results[0])
        return halloc

    def op_host_dealloc(self, op: prog.HostDealloc, loc: str) -> Op:
        v = self.values
        return _op("memref.dealloc", [v[op.memref]], (), loc)

    def op_dim(self, op: prog.Dim, loc: str) -> Op:
        v = self.values
        dim = _op("memref.dim", [v[op.memref], self.index_consts[op.index]], ("index",), loc)
        self.bind(op.result, dim.results[0])
        return dim

    def op_if(self, op: prog.If, loc: str) -> Op:
        v = self.values
        then_block = _block([])
        self.body(op.then, then_block)
        then_block.ops.append(_op("scf.yield", [v[t] for t in op.then_yield]))
        else_block = None
        if op.orelse or op.results:
            else_block = _block([])
            self.body(op.orelse, else_block)
            else_block.ops.append(_op("scf.yield", [v[t] for t in op.else_yield]))
        if_op = _op("scf.if", [v[op.cond]], tuple(TOKEN for _ in op.results), loc)
        if_op.regions = [_region(then_block), _region(else_block)]
        for name, res in zip(op.results, if_op.results, strict=True):
            self.bind(name, res)
        return if_op

    def op_for(self, op: prog.For, loc: str) -> Op:
        v = self.values
        iv = Value(op.iv, "index")
        carried = [Value(a, TOKEN) for a, _ in op.iter_args]
        inits = [v[init] for _, init in op.iter_args]  # read before the body binds
        body = _block([iv, *carried])
        self.bind(op.iv, iv)
        for arg in carried:
            self.bind(arg.name, arg)
        self.body(op.body, body)
        body.ops.append(_op("scf.yield", [v[t] for t in op.yields]))
        for_op = _op("scf.for", [self.index_consts[0], self.index_consts[op.trip_count],
                                 self.index_consts[1], *inits],
                     tuple(TOKEN for _ in op.results), loc)
        for_op.regions = [_region(body)]
        for name, res in zip(op.results, for_op.results, strict=True):
            self.bind(name, res)
        return for_op

    def size(self, size: prog.Size) -> Value:
        return self.index_consts[size] if isinstance(size, int) else self.values[size]

    def launch(self, op: prog.Launch, loc: str) -> Op:
        args = [self.values[b] for b in op.buffers]
        if isinstance(op.scalar, int):
            args.append(self.value_consts[(op.scalar, op.kernel.type.elem)])
        elif op.scalar is not None:
            args.append(self.values[op.scalar])
        return self.async_op("gpu.launch_func", op.token,
                             [*(self.values[n] for n in op.deps),
                              *(self.size(s) for s in op.grid),
                              *(self.size(s) for s in op.block), *args], loc)


# How `_FunctionBuilder.op` builds each kind of op (`OP_KINDS`;
# tests/model/test_op_dispatch.py), as `verify.lowerings.xdsl_build._OP_BUILDERS` does.
_OP_BUILDERS: dict[type, Callable[[_FunctionBuilder, Any, str], Op]] = {
    prog.Wait: _FunctionBuilder.op_wait, prog.Alloc: _FunctionBuilder.op_alloc,
    prog.Dealloc: _FunctionBuilder.op_dealloc, prog.Memset: _FunctionBuilder.op_memset,
    prog.Memcpy: _FunctionBuilder.op_memcpy, prog.HostStore: _FunctionBuilder.op_host_store,
    prog.HostLoad: _FunctionBuilder.op_host_load, prog.Launch: _FunctionBuilder.launch,
    prog.HostAlloc: _FunctionBuilder.op_host_alloc,
    prog.HostDealloc: _FunctionBuilder.op_host_dealloc, prog.Dim: _FunctionBuilder.op_dim,
    prog.If: _FunctionBuilder.op_if, prog.For: _FunctionBuilder.op_for,
}


def light_module(program: prog.Program) -> Op:
    """The source module of `program`, as `build_module` makes it, in the fast
    reader's objects (what `verify.source.facts.read_source` walks)."""
    block = _block([])
    if program.kernels:
        block.ops.append(_op("gpu.module", []))  # device code: never read
    block.ops += [_FunctionBuilder(fn).build() for fn in program.functions]
    module = _op("builtin.module", [])
    module.regions = [_region(block)]
    if program.kernels:
        module._attrs = {"gpu.container_module": _UNIT}
    return module


__all__ = ["light_module", "memref_text"]
