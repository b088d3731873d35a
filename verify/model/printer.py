"""MLIR text for a `Program`.

The custom (pretty) form is what people read and what every `mlir-opt`
from 16 to 22 parses alike; the generic form of the gpu ops changed between
versions (operand segment attribute names), so tools get the custom form
too and report back in generic form (see `lowerings.mlir_opt`).
Each op carries `loc("<prefix>opN")`, the key that ties a lowered runtime call
back to its source op.
"""

from __future__ import annotations

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
        if isinstance(op, Wait):
            lhs = f"{op.token} = " if op.token else ""
            self.emit(depth, f"{lhs}gpu.wait{self.deps(op.token, op.deps)} {loc}")
        elif isinstance(op, Alloc):
            lhs = op.result + (f", {op.token}" if op.token else "")
            shared = " host_shared" if op.host_shared else ""
            sizes = ", ".join(op.dyn_sizes)
            self.emit(
                depth,
                f"{lhs} = gpu.alloc{self.deps(op.token, op.deps)}{shared} ({sizes}) : "
                f"{op.type} {loc}",
            )
        elif isinstance(op, Dealloc):
            lhs = f"{op.token} = " if op.token else ""
            self.emit(
                depth,
                f"{lhs}gpu.dealloc{self.deps(op.token, op.deps)} {op.memref} : {op.type} {loc}",
            )
        elif isinstance(op, Memset):
            lhs = f"{op.token} = " if op.token else ""
            value = _const_name(op.value, op.type.elem)
            self.emit(
                depth,
                f"{lhs}gpu.memset{self.deps(op.token, op.deps)} {op.dst}, {value} : "
                f"{op.type}, {op.type.elem} {loc}",
            )
        elif isinstance(op, Memcpy):
            lhs = f"{op.token} = " if op.token else ""
            self.emit(
                depth,
                f"{lhs}gpu.memcpy{self.deps(op.token, op.deps)} {op.dst}, {op.src} : "
                f"{op.type}, {op.type} {loc}",
            )
        elif isinstance(op, HostStore):
            idx = ", ".join("%c0" for _ in op.type.shape)
            value = _const_name(op.value, op.type.elem)
            self.emit(depth, f"memref.store {value}, {op.memref}[{idx}] : {op.type} {loc}")
        elif isinstance(op, HostLoad):
            idx = ", ".join("%c0" for _ in op.type.shape)
            self.emit(depth, f"{op.result} = memref.load {op.memref}[{idx}] : {op.type} {loc}")
        elif isinstance(op, Launch):
            self.emit(depth, self.launch(op))
        elif isinstance(op, HostAlloc):
            sizes = ", ".join(op.dyn_sizes)
            self.emit(depth, f"{op.result} = memref.alloc({sizes}) : {op.type} {loc}")
        elif isinstance(op, HostDealloc):
            self.emit(depth, f"memref.dealloc {op.memref} : {op.type} {loc}")
        elif isinstance(op, Dim):
            self.emit(depth, f"{op.result} = memref.dim {op.memref}, %c{op.index} : "
                             f"{op.type} {loc}")
        elif isinstance(op, If):
            self.emit(depth, f"{_lhs(op.results)}scf.if {op.cond}{_token_types(op.results)} {{")
            self.body(op.then, depth + 1)
            self.yield_(op.then_yield, depth + 1)
            if op.orelse or op.results:
                self.emit(depth, "} else {")
                self.body(op.orelse, depth + 1)
                self.yield_(op.else_yield, depth + 1)
            self.emit(depth, f"}} {loc}")
        elif isinstance(op, For):
            carried = ""
            if op.iter_args:
                inits = ", ".join(f"{a} = {init}" for a, init in op.iter_args)
                carried = f" iter_args({inits}){_token_types(op.results)}"
            self.emit(depth, f"{_lhs(op.results)}scf.for {op.iv} = %c0 to %c{op.trip_count} "
                             f"step %c1{carried} {{")
            self.body(op.body, depth + 1)
            self.yield_(op.yields, depth + 1)
            self.emit(depth, f"}} {loc}")
        else:  # pragma: no cover - the Op union is closed
            raise TypeError(f"unknown op {op!r}")

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
        if isinstance(op, For):
            index |= {0, 1, op.trip_count}
        elif isinstance(op, (Memset, HostStore)):
            values.add((op.value, op.type.elem))
            if isinstance(op, HostStore):
                index.add(0)
        elif isinstance(op, HostLoad):
            index.add(0)
        elif isinstance(op, Dim):
            index.add(op.index)
        elif isinstance(op, Launch):
            index |= {s for s in (*op.grid, *op.block) if isinstance(s, int)}
            if isinstance(op.scalar, int):
                values.add((op.scalar, op.kernel.type.elem))
    return index, values


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
