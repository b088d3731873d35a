"""Build the xDSL source module of a `Program`, without going through text.

The module has the same shape as `verify.model.printer` prints: one `func.func`
per function, its index and value constants hoisted to the entry block, then
the gpu / memref / scf ops, each with location `loc("opN")` (a `NameLoc`),
the key that ties every lowered runtime call back to its source op.  A
program that launches kernels gets `gpu.container_module` and its
`gpu.module @kernels`, in the form `convert-gpu-to-nvvm` leaves it
(`verify.lowerings.xdsl_kernels`): the in-process lowerings re-create
`gpu-to-llvm`, which runs after that pass.

Ops are made with `verify.lowerings.xdsl_fastir.op_from`: each equal to
what the xDSL constructor in its `canonical` makes, built cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnitAttr,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gpu_alloc_verify.verify.lowerings.xdsl_fastir import append, attr_key, cached, op_from
from gpu_alloc_verify.verify.lowerings.xdsl_gpu_ops import MemsetOp
from gpu_alloc_verify.verify.lowerings.xdsl_kernels import kernel_module, kernel_symbol
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.printer import constants_of

_ELEM: dict[str, Attribute] = {
    "f32": Float32Type(),
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f64": Float64Type(),
    "i16": i16,
    "i32": i32,
    "i64": i64,
    "index": IndexType(),
}
_INDEX = IndexType()
_TOKEN = gpu.AsyncTokenType()
_ARG: dict[str, Attribute] = {"i1": i1, "index": _INDEX, **_ELEM}


def _token(is_async: bool) -> tuple[Attribute, ...]:
    """The result types of an op that has a token result when async."""
    return (_TOKEN,) if is_async else ()


def op_loc(op_id: str) -> NameLoc:
    """`loc("opN")`, printed and parsed alike by MLIR and xDSL."""
    return cached(("loc", op_id), lambda: NameLoc(StringAttr(op_id), NoneAttr()))


def elem_type(name: str) -> Attribute:
    return _ELEM[name]


def memref_type(t: prog.MemRefType) -> MemRefType:
    def make() -> MemRefType:
        shape = [DYNAMIC_INDEX if d is None else d for d in t.shape]
        if t.space is None:
            return MemRefType(elem_type(t.elem), shape)
        return MemRefType(elem_type(t.elem), shape, NoneAttr(), IntegerAttr(t.space, i64))

    return cached(("memref", t.elem, tuple(t.shape), t.space), make)


def arg_type(t: str | prog.MemRefType) -> Attribute:
    return memref_type(t) if isinstance(t, prog.MemRefType) else _ARG[t]


def _constant(attr: IntegerAttr | FloatAttr) -> arith.ConstantOp:
    return op_from(("arith.constant", attr_key(attr)), lambda: arith.ConstantOp(attr), [])


def _yield(values: list[SSAValue] | None = None) -> scf.YieldOp:
    vals = values or []
    return op_from(("scf.yield", len(vals)), lambda: scf.YieldOp(*vals), vals)


def _hint(name: str) -> str:
    return name.lstrip("%")


class _FunctionBuilder:
    def __init__(self, fn: prog.Function) -> None:
        self.fn = fn
        arg_types = [arg_type(a.type) for a in fn.args]
        self.entry = Block(arg_types=arg_types)
        self.values: dict[str, SSAValue] = {}
        for arg, value in zip(fn.args, self.entry.args, strict=False):
            value.name_hint = _hint(arg.name)
            self.values[arg.name] = value
        self.index_consts: dict[int, SSAValue] = {}
        self.value_consts: dict[tuple[int, str], SSAValue] = {}

    def build(self) -> func.FuncOp:
        self.constants()
        self.body(self.fn.body, self.entry)
        results = [self.values[r.name] for r in self.fn.results]
        append(self.entry, op_from(("func.return", len(results)),
                                   lambda: func.ReturnOp(*results), results))
        arg_types = [a.type for a in self.entry.args]
        result_types = [arg_type(r.type) for r in self.fn.results]
        name = self.fn.name
        key = ("func.func", name, tuple(attr_key(t) for t in arg_types),
               tuple(attr_key(t) for t in result_types))
        return op_from(key, lambda: func.FuncOp(name, (arg_types, result_types), Region()), [],
                       regions=[Region(self.entry)])

    def constants(self) -> None:
        index_values, values = constants_of(self.fn)
        for n in sorted(index_values):
            c = _constant(cached(("index", n), partial(IntegerAttr, n, _INDEX)))
            c.result.name_hint = f"c{n}"
            append(self.entry, c)
            self.index_consts[n] = c.result
        for value, elem in sorted(values):
            c = _constant(cached(("value", value, elem), partial(_value, value, elem)))
            c.result.name_hint = f"cst_{elem}_{value}"
            append(self.entry, c)
            self.value_consts[(value, elem)] = c.result

    def body(self, ops: tuple[prog.Op, ...], block: Block) -> None:
        for op in ops:
            append(block, self.op(op, op_loc(op.id)))

    def deps(self, names: tuple[str, ...]) -> list[SSAValue]:
        return [self.values[n] for n in names]

    def bind(self, name: str | None, value: SSAValue | None) -> None:
        if name is not None and value is not None:
            value.name_hint = _hint(name)
            self.values[name] = value

    def op(self, op: prog.Op, loc: NameLoc) -> Operation:
        build = prog.op_handler(_OP_BUILDERS, op, "verify.lowerings.xdsl_build", "builder")
        return build(self, op, loc)

    def async_op(self, op: prog.AsyncOp, key: tuple[Hashable, ...],
                 make: Callable[[list[SSAValue], bool], Operation], operands: list[SSAValue],
                 loc: NameLoc) -> Operation:
        """A gpu op on `op`'s dependencies and then `operands`, with a token
        result bound to `op.token` when async: `make(deps, is_async)` is its
        canonical form, `key` what else tells it apart (`op_from`)."""
        deps = self.deps(op.deps)
        is_async = op.token is not None
        built: Operation = op_from((*key, len(deps), is_async), lambda: make(deps, is_async),
                                   [*deps, *operands], loc, result_types=_token(is_async))
        self.bind(op.token, built.results[0] if is_async else None)
        return built

    def wait(self, op: prog.Wait, loc: NameLoc) -> Operation:
        return self.async_op(op, ("gpu.wait",), lambda deps, is_async: gpu.WaitOp.create(
            operands=deps, result_types=list(_token(is_async))), [], loc)

    def alloc(self, op: prog.Alloc, loc: NameLoc) -> Operation:
        mtype = memref_type(op.type)
        sizes = [self.values[n] for n in op.dyn_sizes]
        deps = self.deps(op.deps)
        shared, is_async = op.host_shared, op.token is not None
        alloc: gpu.AllocOp = op_from(
            ("gpu.alloc", len(sizes), shared, len(deps), is_async),
            lambda: gpu.AllocOp(mtype, dynamic_sizes=sizes, host_shared=shared,
                                async_dependencies=deps, is_async=is_async),
            [*deps, *sizes], loc, result_types=(mtype, _TOKEN) if is_async else (mtype,))
        self.bind(op.result, alloc.results[0])
        self.bind(op.token, alloc.results[1] if is_async else None)
        return alloc

    def dealloc(self, op: prog.Dealloc, loc: NameLoc) -> Operation:
        buffer = self.values[op.memref]
        return self.async_op(op, ("gpu.dealloc",), lambda deps, is_async: gpu.DeallocOp(
            buffer, deps, is_async=is_async), [buffer], loc)

    def memset(self, op: prog.Memset, loc: NameLoc) -> Operation:
        dst = self.values[op.dst]
        value = self.value_consts[(op.value, op.type.elem)]
        return self.async_op(op, ("gpu.memset",), lambda deps, is_async: MemsetOp(
            dst, value, deps, is_async=is_async), [dst, value], loc)

    def memcpy(self, op: prog.Memcpy, loc: NameLoc) -> Operation:
        src, dst = self.values[op.src], self.values[op.dst]
        return self.async_op(op, ("gpu.memcpy",), lambda deps, is_async: gpu.MemcpyOp(
            src, dst, deps, is_async=is_async), [dst, src], loc)

    def host_store(self, op: prog.HostStore, loc: NameLoc) -> Operation:
        idx = [self.index_consts[0]] * len(op.type.shape)
        value = self.value_consts[(op.value, op.type.elem)]
        ref = self.values[op.memref]
        store: memref.StoreOp = op_from(
            ("memref.store", len(idx)),
            lambda: memref.StoreOp.get(value, ref, idx), [value, ref, *idx], loc,
            result_types=())
        return store

    def host_load(self, op: prog.HostLoad, loc: NameLoc) -> Operation:
        idx = [self.index_consts[0]] * len(op.type.shape)
        ref = self.values[op.memref]
        ref_type = ref.type
        assert isinstance(ref_type, MemRefType)
        load: memref.LoadOp = op_from(
            ("memref.load", len(idx)),
            lambda: memref.LoadOp.get(ref, idx), [ref, *idx], loc,
            result_types=(ref_type.element_type,))
        self.bind(op.result, load.results[0])
        return load

    def host_alloc(self, op: prog.HostAlloc, loc: NameLoc) -> Operation:
        mtype = memref_type(op.type)
        sizes = [self.values[n] for n in op.dyn_sizes]
        halloc: memref.AllocOp = op_from(
            ("memref.alloc", attr_key(mtype), len(sizes)),
            lambda: memref.AllocOp.get(mtype.element_type, shape=mtype.get_shape(),
                                       dynamic_sizes=sizes, layout=mtype.layout,
                                       memory_space=mtype.memory_space),
            sizes, loc, result_types=(mtype,))
        self.bind(op.result, halloc.results[0])
        return halloc

    def host_dealloc(self, op: prog.HostDealloc, loc: NameLoc) -> Operation:
        ref = self.values[op.memref]
        hfree: memref.DeallocOp = op_from("memref.dealloc",
                                          lambda: memref.DeallocOp.get(ref), [ref], loc)
        return hfree

    def dim(self, op: prog.Dim, loc: NameLoc) -> Operation:
        ref, index = self.values[op.memref], self.index_consts[op.index]
        dim: memref.DimOp = op_from(
            "memref.dim", lambda: memref.DimOp(ref, index),
            [ref, index], loc)
        self.bind(op.result, dim.results[0])
        return dim

    def if_op(self, op: prog.If, loc: NameLoc) -> Operation:
        then_block = Block()
        self.body(op.then, then_block)
        append(then_block, _yield([self.values[t] for t in op.then_yield]))
        else_region = Region()
        if op.orelse or op.results:
            else_block = Block()
            self.body(op.orelse, else_block)
            append(else_block, _yield([self.values[t] for t in op.else_yield]))
            else_region = Region(else_block)
        cond = self.values[op.cond]
        n = len(op.results)
        if_op: scf.IfOp = op_from(
            ("scf.if", attr_key(cond.type), n),
            lambda: scf.IfOp(cond, [_TOKEN] * n, Region(), Region()), [cond], loc,
            [Region(then_block), else_region])
        for name, res in zip(op.results, if_op.results, strict=True):
            self.bind(name, res)
        return if_op

    def for_op(self, op: prog.For, loc: NameLoc) -> Operation:
        n = len(op.iter_args)
        inits = [self.values[init] for _, init in op.iter_args]  # before the body binds
        body = Block(arg_types=[_INDEX, *([_TOKEN] * n)])
        self.bind(op.iv, body.args[0])
        for (arg, _), value in zip(op.iter_args, body.args[1:], strict=True):
            self.bind(arg, value)
        self.body(op.body, body)
        append(body, _yield([self.values[t] for t in op.yields]))
        lb, ub, step = (self.index_consts[0], self.index_consts[op.trip_count],
                        self.index_consts[1])
        for_op: scf.ForOp = op_from(
            ("scf.for", n), lambda: scf.ForOp(lb, ub, step, inits, Region()),
            [lb, ub, step, *inits], loc, [Region(body)])
        for name, res in zip(op.results, for_op.results, strict=True):
            self.bind(name, res)
        return for_op

    def size(self, size: prog.Size) -> SSAValue:
        return self.index_consts[size] if isinstance(size, int) else self.values[size]

    def launch(self, op: prog.Launch, loc: NameLoc) -> Operation:
        grid = [self.size(s) for s in op.grid]
        block = [self.size(s) for s in op.block]
        args = [self.values[b] for b in op.buffers]
        if isinstance(op.scalar, int):
            args.append(self.value_consts[(op.scalar, op.kernel.type.elem)])
        elif op.scalar is not None:
            args.append(self.values[op.scalar])
        symbol = kernel_symbol(op.kernel)
        return self.async_op(
            op, ("gpu.launch_func", op.kernel.name, len(args)),
            lambda deps, is_async: gpu.LaunchFuncOp(symbol, grid, block, kernelOperands=args,
                                                    async_launch=is_async,
                                                    asyncDependencies=deps),
            [*grid, *block, *args], loc)


# How `_FunctionBuilder.op` builds each kind of op (`OP_KINDS`;
# tests/model/test_op_dispatch.py).
_OP_BUILDERS: dict[type, Callable[[_FunctionBuilder, Any, NameLoc], Operation]] = {
    prog.Wait: _FunctionBuilder.wait, prog.Alloc: _FunctionBuilder.alloc,
    prog.Dealloc: _FunctionBuilder.dealloc, prog.Memset: _FunctionBuilder.memset,
    prog.Memcpy: _FunctionBuilder.memcpy, prog.HostStore: _FunctionBuilder.host_store,
    prog.HostLoad: _FunctionBuilder.host_load, prog.Launch: _FunctionBuilder.launch,
    prog.HostAlloc: _FunctionBuilder.host_alloc,
    prog.HostDealloc: _FunctionBuilder.host_dealloc, prog.Dim: _FunctionBuilder.dim,
    prog.If: _FunctionBuilder.if_op, prog.For: _FunctionBuilder.for_op,
}


def _value(value: int, elem: str) -> IntegerAttr | FloatAttr:
    t = elem_type(elem)
    if isinstance(t, (IntegerType, IndexType)):
        return IntegerAttr(value, t)
    assert isinstance(t, (Float16Type, BFloat16Type, Float32Type, Float64Type))
    return FloatAttr(float(value), t)


def build_module(program: prog.Program) -> ModuleOp:
    """The source module of `program`, as xDSL IR (each op at `loc("opN")`)."""
    ops: list[Operation] = []
    kernels = program.kernels
    if kernels:
        ops.append(kernel_module(kernels, {k: memref_type(k.type) for k in kernels}))
    ops += [_FunctionBuilder(fn).build() for fn in program.functions]
    module: ModuleOp = op_from("builtin.module", lambda: ModuleOp(Region()), [],
                               regions=[Region(Block(ops))])
    if kernels:
        module.attributes["gpu.container_module"] = UnitAttr()
    return module
