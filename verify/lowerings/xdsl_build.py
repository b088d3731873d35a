"""Build the xDSL source module of a `Program`, without going through text.

The module has the same shape as `verify.printer` prints: one `func.func`
per function, its index and value constants hoisted to the entry block, then
the gpu / memref / scf ops, each with location `loc("opN")` (a `NameLoc`),
the key that ties every lowered runtime call back to its source op.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from verify.lowerings.xdsl_gpu_ops import MemsetOp
from verify.program import (
    Alloc,
    Dealloc,
    For,
    Function,
    HostLoad,
    HostStore,
    If,
    Memcpy,
    Memset,
    Op,
    Program,
    Wait,
    walk_ops,
)
from verify.program import MemRefType as ProgMemRefType

_ELEM: dict[str, Attribute] = {
    "f32": Float32Type(),
    "f16": Float16Type(),
    "i32": i32,
    "i64": i64,
}
_ARG: dict[str, Attribute] = {"i1": i1, "index": IndexType()}


def op_loc(op_id: str) -> NameLoc:
    """`loc("opN")`, printed and parsed alike by MLIR and xDSL."""
    return NameLoc(StringAttr(op_id), NoneAttr())


def elem_type(name: str) -> Attribute:
    return _ELEM[name]


def memref_type(t: ProgMemRefType) -> MemRefType:
    shape = [DYNAMIC_INDEX if d is None else d for d in t.shape]
    return MemRefType(elem_type(t.elem), shape)


def _hint(name: str) -> str:
    return name.lstrip("%")


class _FunctionBuilder:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        arg_types = [_ARG[a.type] for a in fn.args]
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
        self.entry.add_op(func.ReturnOp())
        arg_types = [a.type for a in self.entry.args]
        return func.FuncOp(self.fn.name, (arg_types, []), Region(self.entry))

    def constants(self) -> None:
        index_values = {0, 1}
        values: set[tuple[int, str]] = set()
        for op in walk_ops(self.fn.body):
            if isinstance(op, For):
                index_values.add(op.trip_count)
            elif isinstance(op, (Memset, HostStore)):
                values.add((op.value, op.type.elem))
        for n in sorted(index_values):
            c = arith.ConstantOp(IntegerAttr(n, IndexType()))
            c.result.name_hint = f"c{n}"
            self.entry.add_op(c)
            self.index_consts[n] = c.result
        for value, elem in sorted(values):
            t = elem_type(elem)
            attr: IntegerAttr | FloatAttr
            if isinstance(t, IntegerType):
                attr = IntegerAttr(value, t)
            else:
                assert isinstance(t, (Float16Type, Float32Type))
                attr = FloatAttr(float(value), t)
            c = arith.ConstantOp(attr)
            c.result.name_hint = f"cst_{elem}_{value}"
            self.entry.add_op(c)
            self.value_consts[(value, elem)] = c.result

    def body(self, ops: tuple[Op, ...], block: Block) -> None:
        for op in ops:
            built = self.op(op)
            built.location = op_loc(op.id)
            block.add_op(built)

    def deps(self, names: tuple[str, ...]) -> list[SSAValue]:
        return [self.values[n] for n in names]

    def bind(self, name: str | None, value: SSAValue | None) -> None:
        if name is not None and value is not None:
            value.name_hint = _hint(name)
            self.values[name] = value

    def op(self, op: Op) -> Operation:
        if isinstance(op, Wait):
            wait = gpu.WaitOp.create(
                operands=self.deps(op.deps),
                result_types=[gpu.AsyncTokenType()] if op.token else [],
            )
            self.bind(op.token, wait.results[0] if op.token else None)
            return wait
        if isinstance(op, Alloc):
            alloc = gpu.AllocOp(
                memref_type(op.type),
                dynamic_sizes=[self.values[n] for n in op.dyn_sizes],
                host_shared=op.host_shared,
                async_dependencies=self.deps(op.deps),
                is_async=op.token is not None,
            )
            self.bind(op.result, alloc.result)
            self.bind(op.token, alloc.asyncToken)
            return alloc
        if isinstance(op, Dealloc):
            dealloc = gpu.DeallocOp(
                self.values[op.memref], self.deps(op.deps), is_async=op.token is not None
            )
            self.bind(op.token, dealloc.asyncToken)
            return dealloc
        if isinstance(op, Memset):
            memset = MemsetOp(
                self.values[op.dst],
                self.value_consts[(op.value, op.type.elem)],
                self.deps(op.deps),
                is_async=op.token is not None,
            )
            self.bind(op.token, memset.asyncToken)
            return memset
        if isinstance(op, Memcpy):
            memcpy = gpu.MemcpyOp(
                self.values[op.src],
                self.values[op.dst],
                self.deps(op.deps),
                is_async=op.token is not None,
            )
            self.bind(op.token, memcpy.asyncToken)
            return memcpy
        if isinstance(op, HostStore):
            idx = [self.index_consts[0]] * len(op.type.shape)
            value = self.value_consts[(op.value, op.type.elem)]
            return memref.StoreOp.get(value, self.values[op.memref], idx)
        if isinstance(op, HostLoad):
            idx = [self.index_consts[0]] * len(op.type.shape)
            load = memref.LoadOp.get(self.values[op.memref], idx)
            self.bind(op.result, load.res)
            return load
        if isinstance(op, If):
            then_block = Block()
            self.body(op.then, then_block)
            then_block.add_op(scf.YieldOp())
            else_region = Region()
            if op.orelse:
                else_block = Block()
                self.body(op.orelse, else_block)
                else_block.add_op(scf.YieldOp())
                else_region = Region(else_block)
            return scf.IfOp(self.values[op.cond], [], Region(then_block), else_region)
        if isinstance(op, For):
            body = Block(arg_types=[IndexType()])
            self.bind(op.iv, body.args[0])
            self.body(op.body, body)
            body.add_op(scf.YieldOp())
            return scf.ForOp(
                self.index_consts[0],
                self.index_consts[op.trip_count],
                self.index_consts[1],
                [],
                Region(body),
            )
        raise TypeError(f"unknown op {op!r}")  # pragma: no cover - the Op union is closed


def build_module(program: Program) -> ModuleOp:
    """The source module of `program`, as xDSL IR (each op at `loc("opN")`)."""
    return ModuleOp([_FunctionBuilder(fn).build() for fn in program.functions])
