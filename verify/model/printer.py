"""MLIR text for a `Program`.

The custom (pretty) form is what people read and what every `mlir-opt`
from 16 to 22 parses alike; the generic form of the gpu ops changed between
versions (operand segment attribute names), so tools get the custom form
too and report back in generic form (see `lowerings.mlir_opt`).
Each op carries `loc("<prefix>opN")`, the key that ties a lowered runtime call
back to its source op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_alloc_verify.verify.model.kernels import kernel_text
from gpu_alloc_verify.verify.model.program import (
    FLOAT_TYPES,
    Alloc,
    Arg,
    Dealloc,
    Dim,
    For,
    Function,
    HostAlloc,
    HostDealloc,
    HostLoad,
    HostStore,
    If,
    Launch,
    Memcpy,
    Memset,
    Op,
    Program,
    Size,
    Wait,
    walk_ops,
)


def _const_name(value: int, elem: str) -> str:
    sign = "m" if value < 0 else ""
    return f"%cst_{elem}_{sign}{abs(value)}"


def _const_literal(value: int, elem: str) -> str:
    return f"{float(value)!r}" if elem in FLOAT_TYPES else str(value)


class _Printer:
    def __init__(self, loc_prefix: str) -> None:
        self.loc_prefix = loc_prefix
        self.lines: list[str] = []

    def loc(self, op_id: str) -> str:
        return f'loc("{self.loc_prefix}{op_id}")'

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def deps(self, token: str | None, deps: tuple[str, ...]) -> str:
        parts = []
        if token is not None:
            parts.append("async")
        if deps:
            parts.append("[" + ", ".join(deps) + "]")
        return (" " + " ".join(parts)) if parts else ""

    def function(self, fn: Function) -> None:
        args = ", ".join(f"{a.name}: {a.type}" for a in fn.args)
        self.emit(1, f"func.func @{fn.name}({args}){_result_types(fn.results)} {{")
        self.constants(fn)
        self.body(fn.body, 2)
        if fn.results:
            names = ", ".join(r.name for r in fn.results)
            types = ", ".join(str(r.type) for r in fn.results)
            self.emit(2, f"return {names} : {types}")
        else:
            self.emit(2, "return")
        self.emit(1, "}")

    def constants(self, fn: Function) -> None:
        # Hoisted to the entry block so they dominate every use; only those
        # some op uses.
        index_consts, values = constants_of(fn)
        for n in sorted(index_consts):
            self.emit(2, f"%c{n} = arith.constant {n} : index")
        for value, elem in sorted(values):
            lit = _const_literal(value, elem)
            self.emit(2, f"{_const_name(value, elem)} = arith.constant {lit} : {elem}")

    def body(self, ops: tuple[Op, ...], depth: int) -> None:
        for op in ops:
            self.op(op, depth)

    def op(self, op: Op, depth: int) -> None:
        loc = self.loc(op.id)
        print_op = _OP_PRINTERS.get(type(op))
        if print_op is None:  # pragma: no cover - the Op union is closed
            raise TypeError(f"verify.model.printer: no printer for op kind "
                            f"{type(op).__name__}: {op!r}")
        print_op(self, op, depth, loc)

    def op_wait(self, op: Wait, depth: int, loc: str) -> None:
        lhs = f"{op.token} = " if op.token else ""
        self.emit(depth, f"{lhs}gpu.wait{self.deps(op.token, op.deps)} {loc}")

    def op_alloc(self, op: Alloc, depth: int, loc: str) -> None:
        lhs = op.result + (f", {op.token}" if op.token else "")
        shared = " host_shared" if op.host_shared else ""
        sizes = ", ".join(op.dyn_sizes)
        self.emit(
            depth,
            f"{lhs} = gpu.alloc{self.deps(op.token, op.deps)}{shared} ({sizes}) : "
            f"{op.type} {loc}",
        )

    def op_dealloc(self, op: Dealloc, depth: int, loc: str) -> None:
        lhs = f"{op.token} = " if op.token else ""
        self.emit(
            depth,
            f"{lhs}gpu.dealloc{self.deps(op.token, op.deps)} {op.memref} : {op.type} {loc}",
        )

    def op_memset(self, op: Memset, depth: int, loc: str) -> None:
        lhs = f"{op.token} = " if op.token else ""
        value = _const_name(op.value, op.type.elem)
        self.emit(
            depth,
            f"{lhs}gpu.memset{self.deps(op.token, op.deps)} {op.dst}, {value} : "
            f"{op.type}, {op.type.elem} {loc}",
        )

    def op_memcpy(self, op: Memcpy, depth: int, loc: str) -> None:
        lhs = f"{op.token} = " if op.token else ""
        self.emit(
            depth,
            f"{lhs}gpu.memcpy{self.deps(op.token, op.deps)} {op.dst}, {op.src} : "
            f"{op.type}, {op.type} {loc}",
        )

    def op_host_store(self, op: HostStore, depth: int, loc: str) -> None:
        idx = ", ".join("%c0" for _ in op.type.shape)
        value = _const_name(op.value, op.type.elem)
        self.emit(depth, f"memref.store {value}, {op.memref}[{idx}] : {op.type} {loc}")

    def op_host_load(self, op: HostLoad, depth: int, loc: str) -> None:
        idx = ", ".join("%c0" for _ in op.type.shape)
        self.emit(depth, f"{op.result} = memref.load {op.memref}[{idx}] : {op.type} {loc}")

    def op_launch(self, op: Launch, depth: int, loc: str) -> None:
        self.emit(depth, self.launch(op))

    def op_host_alloc(self, op: HostAlloc, depth: int, loc: str) -> None:
        sizes = ", ".join(op.dyn_sizes)
        self.emit(depth, f"{op.result} = memref.alloc({sizes}) : {op.type} {loc}")

    def op_host_dealloc(self, op: HostDealloc, depth: int, loc: str) -> None:
        self.emit(depth, f"memref.dealloc {op.memref} : {op.type} {loc}")

    def op_dim(self, op: Dim, depth: int, loc: str) -> None:
        self.emit(depth, f"{op.result} = memref.dim {op.memref}, %c{op.index} : "
                         f"{op.type} {loc}")

    def op_if(self, op: If, depth: int, loc: str) -> None:
        self.emit(depth, f"{_lhs(op.results)}scf.if {op.cond}{_token_types(op.results)} {{")
        self.body(op.then, depth + 1)
        self.yield_(op.then_yield, depth + 1)
        if op.orelse or op.results:
            self.emit(depth, "} else {")
            self.body(op.orelse, depth + 1)
            self.yield_(op.else_yield, depth + 1)
        self.emit(depth, f"}} {loc}")

    def op_for(self, op: For, depth: int, loc: str) -> None:
        carried = ""
        if op.iter_args:
            inits = ", ".join(f"{a} = {init}" for a, init in op.iter_args)
            carried = f" iter_args({inits}){_token_types(op.results)}"
        self.emit(depth, f"{_lhs(op.results)}scf.for {op.iv} = %c0 to %c{op.trip_count} "
                         f"step %c1{carried} {{")
        self.body(op.body, depth + 1)
        self.yield_(op.yields, depth + 1)
        self.emit(depth, f"}} {loc}")

    def yield_(self, tokens: tuple[str, ...], depth: int) -> None:
        """The explicit `scf.yield` of tokens (an empty one stays implicit)."""
        if tokens:
            self.emit(depth, f"scf.yield {', '.join(tokens)} : "
                             f"{', '.join('!gpu.async.token' for _ in tokens)}")

    def launch(self, op: Launch) -> str:
        lhs = f"{op.token} = " if op.token else ""
        operands = [f"{b} : {op.kernel.type}" for b in op.buffers]
        if op.scalar is not None:
            operands.append(f"{_scalar(op)} : {op.kernel.type.elem}")
        return (f"{lhs}gpu.launch_func{self.deps(op.token, op.deps)} "
                f"@kernels::@{op.kernel.name} blocks in ({_sizes(op.grid)}) "
                f"threads in ({_sizes(op.block)}) args({', '.join(operands)}) "
                f"{self.loc(op.id)}")

    def kernels(self, program: Program) -> None:
        """`gpu.module @kernels` with the kernels the program launches."""
        self.emit(1, "gpu.module @kernels {")
        for kernel in program.kernels:
            self.lines.append(kernel_text(kernel, "    "))
        self.emit(1, "}")


# How `_Printer.op` prints each kind of op (`OP_KINDS`; tests/test_op_dispatch.py).
_OP_PRINTERS: dict[type, Callable[[_Printer, Any, int, str], None]] = {
    Wait: _Printer.op_wait, Alloc: _Printer.op_alloc, Dealloc: _Printer.op_dealloc,
    Memset: _Printer.op_memset, Memcpy: _Printer.op_memcpy,
    HostStore: _Printer.op_host_store, HostLoad: _Printer.op_host_load,
    Launch: _Printer.op_launch, HostAlloc: _Printer.op_host_alloc,
    HostDealloc: _Printer.op_host_dealloc, Dim: _Printer.op_dim,
    If: _Printer.op_if, For: _Printer.op_for,
}


def _lhs(results: tuple[str, ...]) -> str:
    return f"{', '.join(results)} = " if results else ""


def _token_types(results: tuple[str, ...]) -> str:
    if not results:
        return ""
    return " -> (" + ", ".join("!gpu.async.token" for _ in results) + ")"


def _result_types(results: tuple[Arg, ...]) -> str:
    if not results:
        return ""
    if len(results) == 1:
        return f" -> {results[0].type}"
    return " -> (" + ", ".join(str(r.type) for r in results) + ")"


def _size(size: Size) -> str:
    return f"%c{size}" if isinstance(size, int) else size


def _sizes(sizes: tuple[Size, Size, Size]) -> str:
    return ", ".join(_size(s) for s in sizes)


def _scalar(op: Launch) -> str:
    scalar = op.scalar
    if isinstance(scalar, int):
        return _const_name(scalar, op.kernel.type.elem)
    assert scalar is not None
    return scalar


def constants_of(fn: Function) -> tuple[set[int], set[tuple[int, str]]]:
    """The index constants and (value, element type) constants `fn` uses."""
    index: set[int] = set()
    values: set[tuple[int, str]] = set()
    for op in walk_ops(fn.body):
        add = _OP_CONSTANTS.get(type(op))
        if add is None:  # pragma: no cover - the Op union is closed
            raise TypeError(f"verify.model.printer.constants_of: no constants rule for op "
                            f"kind {type(op).__name__}: {op!r}")
        add(op, index, values)
    return index, values


def _no_constants(op: Op, index: set[int], values: set[tuple[int, str]]) -> None:
    """The op's operands are values the function defines: no constant."""


def _for_constants(op: For, index: set[int], values: set[tuple[int, str]]) -> None:
    index.update({0, 1, op.trip_count})


def _memset_constants(op: Memset, index: set[int], values: set[tuple[int, str]]) -> None:
    values.add((op.value, op.type.elem))


def _host_store_constants(op: HostStore, index: set[int], values: set[tuple[int, str]]) -> None:
    values.add((op.value, op.type.elem))
    index.add(0)


def _host_load_constants(op: HostLoad, index: set[int], values: set[tuple[int, str]]) -> None:
    index.add(0)


def _dim_constants(op: Dim, index: set[int], values: set[tuple[int, str]]) -> None:
    index.add(op.index)


def _launch_constants(op: Launch, index: set[int], values: set[tuple[int, str]]) -> None:
    index.update({s for s in (*op.grid, *op.block) if isinstance(s, int)})
    if isinstance(op.scalar, int):
        values.add((op.scalar, op.kernel.type.elem))


# Which constants `constants_of` hoists for each kind of op (`OP_KINDS`;
# tests/test_op_dispatch.py).
_OP_CONSTANTS: dict[type, Callable[[Any, set[int], set[tuple[int, str]]], None]] = {
    Wait: _no_constants, Alloc: _no_constants, Dealloc: _no_constants,
    Memset: _memset_constants, Memcpy: _no_constants, HostStore: _host_store_constants,
    HostLoad: _host_load_constants, Launch: _launch_constants, HostAlloc: _no_constants,
    HostDealloc: _no_constants, Dim: _dim_constants, If: _no_constants, For: _for_constants,
}


def print_program(program: Program, loc_prefix: str = "") -> str:
    printer = _Printer(loc_prefix)
    if program.kernels:
        printer.lines.append("module attributes {gpu.container_module} {")
        printer.kernels(program)
    else:
        printer.lines.append("module {")
    for fn in program.functions:
        printer.function(fn)
    printer.lines.append("}")
    return "\n".join(printer.lines) + "\n"
