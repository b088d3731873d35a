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

from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.kernels import kernel_text


def _const_name(value: int, elem: str) -> str:
    sign = "m" if value < 0 else ""
    return f"%cst_{elem}_{sign}{abs(value)}"


def _const_literal(value: int, elem: str) -> str:
    return f"{float(value)!r}" if elem in prog.FLOAT_TYPES else str(value)


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

    def gpu_op(self, op: prog.AsyncOp | prog.GpuLaunch, name: str) -> str:
        """`%t = gpu.<name> async [deps]`: the op up to its operands (no
        `%t = ` nor `async` when synchronous)."""
        lhs = f"{op.token} = " if op.token else ""
        return f"{lhs}gpu.{name}{self.deps(op.token, op.deps)}"

    def function(self, fn: prog.Function) -> None:
        args = ", ".join(f"{a.name}: {a.type}" for a in fn.args)
        private = "private " if fn.private else ""
        self.emit(1, f"func.func {private}@{fn.name}({args}){_result_types(fn.results)} {{")
        self.constants(fn)
        self.body(fn.body, 2)
        if fn.results:
            names = ", ".join(r.name for r in fn.results)
            types = ", ".join(str(r.type) for r in fn.results)
            self.emit(2, f"return {names} : {types}")
        else:
            self.emit(2, "return")
        self.emit(1, "}")

    def constants(self, fn: prog.Function) -> None:
        # Hoisted to the entry block so they dominate every use; only those
        # some op uses.
        index_consts, values = constants_of(fn)
        for n in sorted(index_consts):
            self.emit(2, f"%c{n} = arith.constant {n} : index")
        for value, elem in sorted(values):
            lit = _const_literal(value, elem)
            self.emit(2, f"{_const_name(value, elem)} = arith.constant {lit} : {elem}")

    def body(self, ops: tuple[prog.Op, ...], depth: int) -> None:
        for op in ops:
            self.op(op, depth)

    def op(self, op: prog.Op, depth: int) -> None:
        print_op = prog.op_handler(_OP_PRINTERS, op, "verify.model.printer", "printer")
        print_op(self, op, depth, self.loc(op.id))

    def op_wait(self, op: prog.Wait, depth: int, loc: str) -> None:
        self.emit(depth, f"{self.gpu_op(op, 'wait')} {loc}")

    def op_alloc(self, op: prog.Alloc, depth: int, loc: str) -> None:
        lhs = op.result + (f", {op.token}" if op.token else "")
        shared = " host_shared" if op.host_shared else ""
        sizes = ", ".join(op.dyn_sizes)
        self.emit(
            depth,
            f"{lhs} = gpu.alloc{self.deps(op.token, op.deps)}{shared} ({sizes}) : "
            f"{op.type} {loc}",
        )

    def op_dealloc(self, op: prog.Dealloc, depth: int, loc: str) -> None:
        self.emit(depth, f"{self.gpu_op(op, 'dealloc')} {op.memref} : {op.type} {loc}")

    def op_memset(self, op: prog.Memset, depth: int, loc: str) -> None:
        value = _const_name(op.value, op.type.elem)
        self.emit(depth, f"{self.gpu_op(op, 'memset')} {op.dst}, {value} : "
                         f"{op.type}, {op.type.elem} {loc}")

    def op_memcpy(self, op: prog.Memcpy, depth: int, loc: str) -> None:
        self.emit(depth, f"{self.gpu_op(op, 'memcpy')} {op.dst}, {op.src} : "
                         f"{op.type}, {op.source_type} {loc}")

    def op_host_store(self, op: prog.HostStore, depth: int, loc: str) -> None:
        idx = ", ".join("%c0" for _ in op.type.shape)
        value = _const_name(op.value, op.type.elem)
        self.emit(depth, f"memref.store {value}, {op.memref}[{idx}] : {op.type} {loc}")

    def op_host_load(self, op: prog.HostLoad, depth: int, loc: str) -> None:
        idx = ", ".join("%c0" for _ in op.type.shape)
        self.emit(depth, f"{op.result} = memref.load {op.memref}[{idx}] : {op.type} {loc}")

    def op_launch(self, op: prog.Launch, depth: int, loc: str) -> None:
        self.emit(depth, self.launch(op))

    def op_host_alloc(self, op: prog.HostAlloc, depth: int, loc: str) -> None:
        sizes = ", ".join(op.dyn_sizes)
        self.emit(depth, f"{op.result} = memref.alloc({sizes}) : {op.type} {loc}")

    def op_host_dealloc(self, op: prog.HostDealloc, depth: int, loc: str) -> None:
        self.emit(depth, f"memref.dealloc {op.memref} : {op.type} {loc}")

    def op_dim(self, op: prog.Dim, depth: int, loc: str) -> None:
        self.emit(depth, f"{op.result} = memref.dim {op.memref}, %c{op.index} : "
                         f"{op.type} {loc}")

    def op_if(self, op: prog.If, depth: int, loc: str) -> None:
        if op.form == "cf":
            self.cf_if(op, depth, loc)
            return
        self.emit(depth, f"{_lhs(op.results)}scf.if {op.cond}{_token_types(op.results)} {{")
        self.body(op.then, depth + 1)
        self.yield_(op.then_yield, depth + 1)
        if op.orelse or op.results:
            self.emit(depth, "} else {")
            self.body(op.orelse, depth + 1)
            self.yield_(op.else_yield, depth + 1)
        self.emit(depth, f"}} {loc}")

    def cf_if(self, op: prog.If, depth: int, loc: str) -> None:
        """`cf.cond_br` to two blocks that branch to a join block, which
        takes the yielded tokens as its arguments (a function's top level)."""
        b = f"^{op.id}_"
        self.emit(depth, f"cf.cond_br {op.cond}, {b}then, {b}else {loc}")
        for label, ops, yields in (("then", op.then, op.then_yield),
                                   ("else", op.orelse, op.else_yield)):
            self.emit(depth - 1, f"{b}{label}:")
            self.body(ops, depth)
            self.emit(depth, f"cf.br {b}join{_block_operands(yields)}")
        self.emit(depth - 1, f"{b}join{_block_args(op.results)}:")

    def op_for(self, op: prog.For, depth: int, loc: str) -> None:
        if op.form == "while":
            self.while_loop(op, depth, loc)
            return
        if op.form == "cf":
            self.cf_loop(op, depth, loc)
            return
        carried = ""
        if op.iter_args:
            inits = ", ".join(f"{a} = {init}" for a, init in op.iter_args)
            carried = f" iter_args({inits}){_token_types(op.results)}"
        self.emit(depth, f"{_lhs(op.results)}scf.for {op.iv} = %c0 to {_trips(op)} "
                         f"step %c1{carried} {{")
        self.body(op.body, depth + 1)
        self.yield_(op.yields, depth + 1)
        self.emit(depth, f"}} {loc}")

    def while_loop(self, op: prog.For, depth: int, loc: str) -> None:
        """`scf.while` counting from 0 to the trip count, tokens carried beside."""
        n = f"%{op.id}_"
        inits = [f"{n}i = %c0"] + [f"{n}b{k} = {init}" for k, (_, init) in
                                   enumerate(op.iter_args)]
        before = [f"{n}i"] + [f"{n}b{k}" for k in range(len(op.iter_args))]
        after = [f"{op.iv}: index"] + [f"{a}: {prog.TOKEN_TYPE}" for a, _ in op.iter_args]
        types = ", ".join(["index"] + [prog.TOKEN_TYPE] * len(op.iter_args))
        self.emit(depth, f"{_lhs((f'{n}end', *op.results))}scf.while ({', '.join(inits)}) : "
                         f"({types}) -> ({types}) {{")
        self.emit(depth + 1, f"{n}go = arith.cmpi slt, {n}i, {_trips(op)} : index")
        self.emit(depth + 1, f"scf.condition({n}go) {', '.join(before)} : {types}")
        self.emit(depth, "} do {")
        self.emit(depth, f"^bb0({', '.join(after)}):")
        self.body(op.body, depth + 1)
        self.emit(depth + 1, f"{n}next = arith.addi {op.iv}, %c1 : index")
        self.emit(depth + 1, f"scf.yield {', '.join([f'{n}next', *op.yields])} : {types}")
        self.emit(depth, f"}} {loc}")

    def cf_loop(self, op: prog.For, depth: int, loc: str) -> None:
        """A loop of blocks: a header taking the count and the tokens, a body
        branching back, an exit taking the tokens (a function's top level)."""
        b, n = f"^{op.id}_", f"%{op.id}_"
        carried = [a for a, _ in op.iter_args]
        inits = ["%c0"] + [init for _, init in op.iter_args]
        head = [f"{op.iv}: index"] + [f"{a}: {prog.TOKEN_TYPE}" for a in carried]
        self.emit(depth, f"cf.br {b}head{_block_operands(tuple(inits), ('index',))} {loc}")
        self.emit(depth - 1, f"{b}head({', '.join(head)}):")
        self.emit(depth, f"{n}go = arith.cmpi slt, {op.iv}, {_trips(op)} : index")
        self.emit(depth, f"cf.cond_br {n}go, {b}body, {b}exit{_block_operands(tuple(carried))}")
        self.emit(depth - 1, f"{b}body:")
        self.body(op.body, depth)
        self.emit(depth, f"{n}next = arith.addi {op.iv}, %c1 : index")
        self.emit(depth, f"cf.br {b}head{_block_operands((f'{n}next', *op.yields), ('index',))}")
        self.emit(depth - 1, f"{b}exit{_block_args(op.results)}:")

    def op_view(self, op: prog.View, depth: int, loc: str) -> None:
        src, dst = op.source_type, op.type
        if op.kind == "subview":
            offsets = ", ".join(map(str, op.offsets))
            sizes = ", ".join(map(str, op.sizes))
            ones = ", ".join("1" for _ in op.sizes)
            text = f"memref.subview {op.source}[{offsets}] [{sizes}] [{ones}] : {src} to {dst}"
        elif op.kind == "cast":
            text = f"memref.cast {op.source} : {src} to {dst}"
        elif op.kind == "reinterpret_cast":
            text = (f"memref.reinterpret_cast {op.source} to offset: [0], sizes: "
                    f"[{dst.shape[0]}], strides: [1] : {src} to {dst}")
        else:
            dims = ", ".join(str(d) for d in range(len(src.shape)))
            text = f"memref.collapse_shape {op.source} [[{dims}]] : {src} into {dst}"
        self.emit(depth, f"{op.result} = {text} {loc}")

    def op_execute(self, op: prog.Execute, depth: int, loc: str) -> None:
        deps = f" [{', '.join(op.deps)}]" if op.deps else ""
        value = f"!async.value<{prog.TOKEN_TYPE}>"
        operands = ""
        if op.operands:
            operands = " (" + ", ".join(f"{outer} as {inner}: {value}"
                                        for outer, inner in op.operands) + ")"
        results = ""
        if op.results:
            results = " -> (" + ", ".join(value for _ in op.results) + ")"
        self.emit(depth, f"{_lhs((op.token, *op.results))}async.execute{deps}{operands}"
                         f"{results} {{")
        self.body(op.body, depth + 1)
        yields = ""
        if op.yields:
            yields = f" {', '.join(op.yields)} : {', '.join(prog.TOKEN_TYPE for _ in op.yields)}"
        self.emit(depth + 1, f"async.yield{yields} {self.loc(op.id + '.yield')}")
        self.emit(depth, f"}} {loc}")

    def op_await(self, op: prog.Await, depth: int, loc: str) -> None:
        if op.result is None:
            self.emit(depth, f"async.await {op.operand} : !async.token {loc}")
        else:
            self.emit(depth, f"{op.result} = async.await {op.operand} : "
                             f"!async.value<{prog.TOKEN_TYPE}> {loc}")

    def op_call(self, op: prog.Call, depth: int, loc: str) -> None:
        args = ", ".join(str(t) for t in op.arg_types)
        results = ", ".join(str(t) for t in op.result_types)
        self.emit(depth, f"{_lhs(op.results)}func.call @{op.callee}({', '.join(op.args)}) : "
                         f"({args}) -> ({results}) {loc}")

    def op_host_register(self, op: prog.HostRegister, depth: int, loc: str) -> None:
        unranked = f"memref<*x{op.type.elem}>"
        self.emit(depth, f"{op.unranked} = memref.cast {op.memref} : {op.type} to {unranked} "
                         f"{self.loc(op.id + '.cast')}")
        self.emit(depth, f"gpu.host_register {op.unranked} : {unranked} {loc}")

    def op_set_device(self, op: prog.SetDevice, depth: int, loc: str) -> None:
        device = _const_name(op.device, "i32") if isinstance(op.device, int) else op.device
        self.emit(depth, f"gpu.set_default_device {device} {loc}")

    def op_gpu_launch(self, op: prog.GpuLaunch, depth: int, loc: str) -> None:
        n = f"%{op.id}_"
        grid = ", ".join(f"{n}g{d} = %c1" for d in "xyz")
        block = ", ".join(f"{n}s{d} = %c1" for d in "xyz")
        self.emit(depth, f"{self.gpu_op(op, 'launch')} blocks({n}bx, {n}by, {n}bz) in ({grid}) "
                         f"threads({n}tx, {n}ty, {n}tz) in ({block}) {{")
        idx = ", ".join("%c0" for _ in op.type.shape)
        value = _const_name(op.value, op.type.elem)
        self.emit(depth + 1, f"memref.store {value}, {op.memref}[{idx}] : {op.type}")
        self.emit(depth + 1, "gpu.terminator")
        self.emit(depth, f"}} {loc}")

    def yield_(self, tokens: tuple[str, ...], depth: int) -> None:
        """The explicit `scf.yield` of tokens (an empty one stays implicit)."""
        if tokens:
            self.emit(depth, f"scf.yield {', '.join(tokens)} : "
                             f"{', '.join('!gpu.async.token' for _ in tokens)}")

    def launch(self, op: prog.Launch) -> str:
        operands = [f"{b} : {op.kernel.type}" for b in op.buffers]
        if op.scalar is not None:
            operands.append(f"{_scalar(op)} : {op.kernel.type.elem}")
        return (f"{self.gpu_op(op, 'launch_func')} @kernels::@{op.kernel.name} "
                f"blocks in ({_sizes(op.grid)}) threads in ({_sizes(op.block)}) "
                f"args({', '.join(operands)}) {self.loc(op.id)}")

    def kernels(self, program: prog.Program) -> None:
        """`gpu.module @kernels` with the kernels the program launches."""
        self.emit(1, "gpu.module @kernels {")
        for kernel in program.kernels:
            self.lines.append(kernel_text(kernel, "    "))
        self.emit(1, "}")


# How `_Printer.op` prints each kind of op (`OP_KINDS`; tests/model/test_op_dispatch.py).
_OP_PRINTERS: dict[type, Callable[[_Printer, Any, int, str], None]] = {
    prog.Wait: _Printer.op_wait, prog.Alloc: _Printer.op_alloc,
    prog.Dealloc: _Printer.op_dealloc, prog.Memset: _Printer.op_memset,
    prog.Memcpy: _Printer.op_memcpy, prog.HostStore: _Printer.op_host_store,
    prog.HostLoad: _Printer.op_host_load, prog.Launch: _Printer.op_launch,
    prog.HostAlloc: _Printer.op_host_alloc, prog.HostDealloc: _Printer.op_host_dealloc,
    prog.Dim: _Printer.op_dim, prog.If: _Printer.op_if, prog.For: _Printer.op_for,
    prog.View: _Printer.op_view, prog.Execute: _Printer.op_execute,
    prog.Await: _Printer.op_await, prog.Call: _Printer.op_call,
    prog.HostRegister: _Printer.op_host_register, prog.SetDevice: _Printer.op_set_device,
    prog.GpuLaunch: _Printer.op_gpu_launch,
}


def _trips(op: prog.For) -> str:
    return f"%c{op.trip_count}" if op.trip_arg is None else op.trip_arg


def _block_operands(values: tuple[str, ...], lead: tuple[str, ...] = ()) -> str:
    """`(%a, %b : index, !gpu.async.token)`: the first `len(lead)` of the
    types `lead`, the rest tokens; "" for none."""
    if not values:
        return ""
    types = [*lead, *(prog.TOKEN_TYPE for _ in values[len(lead):])]
    return f"({', '.join(values)} : {', '.join(types)})"


def _block_args(names: tuple[str, ...]) -> str:
    return f"({', '.join(f'{n}: {prog.TOKEN_TYPE}' for n in names)})" if names else ""


def _lhs(results: tuple[str, ...]) -> str:
    return f"{', '.join(results)} = " if results else ""


def _token_types(results: tuple[str, ...]) -> str:
    if not results:
        return ""
    return " -> (" + ", ".join("!gpu.async.token" for _ in results) + ")"


def _result_types(results: tuple[prog.Arg, ...]) -> str:
    if not results:
        return ""
    if len(results) == 1:
        return f" -> {results[0].type}"
    return " -> (" + ", ".join(str(r.type) for r in results) + ")"


def _size(size: prog.Size) -> str:
    return f"%c{size}" if isinstance(size, int) else size


def _sizes(sizes: prog.Sizes) -> str:
    return ", ".join(_size(s) for s in sizes)


def _scalar(op: prog.Launch) -> str:
    scalar = op.scalar
    if isinstance(scalar, int):
        return _const_name(scalar, op.kernel.type.elem)
    assert scalar is not None
    return scalar


# (value, element type) of each value constant.
_Values = set[tuple[int, str]]


def constants_of(fn: prog.Function) -> tuple[set[int], _Values]:
    """The index constants and (value, element type) constants `fn` uses."""
    index: set[int] = set()
    values: _Values = set()
    for op in prog.walk_ops(fn.body):
        add = prog.op_handler(_OP_CONSTANTS, op, "verify.model.printer.constants_of",
                              "constants rule")
        add(op, index, values)
    return index, values


def _no_constants(op: prog.Op, index: set[int], values: _Values) -> None:
    """The op's operands are values the function defines: no constant."""


def _for_constants(op: prog.For, index: set[int], values: _Values) -> None:
    index.update({0, 1})
    if op.trip_arg is None:
        index.add(op.trip_count)


def _set_device_constants(op: prog.SetDevice, index: set[int], values: _Values) -> None:
    if isinstance(op.device, int):
        values.add((op.device, "i32"))


def _gpu_launch_constants(op: prog.GpuLaunch, index: set[int], values: _Values) -> None:
    index.update({0, 1})
    values.add((op.value, op.type.elem))


def _memset_constants(op: prog.Memset, index: set[int], values: _Values) -> None:
    values.add((op.value, op.type.elem))


def _host_store_constants(op: prog.HostStore, index: set[int], values: _Values) -> None:
    values.add((op.value, op.type.elem))
    index.add(0)


def _host_load_constants(op: prog.HostLoad, index: set[int], values: _Values) -> None:
    index.add(0)


def _dim_constants(op: prog.Dim, index: set[int], values: _Values) -> None:
    index.add(op.index)


def _launch_constants(op: prog.Launch, index: set[int], values: _Values) -> None:
    index.update({s for s in (*op.grid, *op.block) if isinstance(s, int)})
    if isinstance(op.scalar, int):
        values.add((op.scalar, op.kernel.type.elem))


# Which constants `constants_of` hoists for each kind of op (`OP_KINDS`;
# tests/model/test_op_dispatch.py).
_OP_CONSTANTS: dict[type, Callable[[Any, set[int], _Values], None]] = {
    prog.Wait: _no_constants, prog.Alloc: _no_constants, prog.Dealloc: _no_constants,
    prog.Memset: _memset_constants, prog.Memcpy: _no_constants,
    prog.HostStore: _host_store_constants, prog.HostLoad: _host_load_constants,
    prog.Launch: _launch_constants, prog.HostAlloc: _no_constants,
    prog.HostDealloc: _no_constants, prog.Dim: _dim_constants, prog.If: _no_constants,
    prog.For: _for_constants, prog.View: _no_constants, prog.Execute: _no_constants,
    prog.Await: _no_constants, prog.Call: _no_constants, prog.HostRegister: _no_constants,
    prog.SetDevice: _set_device_constants, prog.GpuLaunch: _gpu_launch_constants,
}


def print_program(program: prog.Program, loc_prefix: str = "") -> str:
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
