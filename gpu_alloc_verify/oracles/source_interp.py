"""Reference semantics: run a source `Program` under the gpu dialect's meaning.

A token is a completion fact.  The interpreter maps that onto any `Runtime`
in the most literal way, independent of how a lowering does it: every async
op gets a stream of its own that first waits for the events of its
dependencies, and a fresh event recorded after it stands for its token.  A
synchronous `gpu.wait [deps]` synchronizes those events; a synchronous memset,
memcpy or dealloc runs on a private stream that is synchronized at once.  A
dealloc first waits on the host for its dependencies, so the free never races
with the work it follows, whatever the profile does with its stream.  At the
end of a function every stream and event the interpreter made is destroyed:
the source has no streams, so its outcome never shows a live one.

What the outcome cannot show, `SourceRun` adds: the tokens the executed path
left un-awaited (a lowering may then legitimately leave streams live).

A kernel launch is device work like a memset: queued on the op's stream
with `Runtime.launch`, its `gpu.func` body run over the grid by
`oracles.kernel_interp` when the scheduler runs it (a kernel using an op that
interpreter does not model makes the run `unsupported`, naming the op).  A
synchronous launch is synchronized at once, as a synchronous memset is.
Host buffers (`memref.alloc`) are host memory (`Runtime.host_alloc`); a
buffer passed in is managed memory the caller made (`bind_buffers`), filled
with element k = k + 1 so that what the program does to it shows.
"""

from __future__ import annotations

import struct
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import prod
from typing import Any, Literal

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, KernelArg, KernelUnsupported, MemRefView
from gpu_alloc_verify.oracles.runtime import Outcome, Runtime, memset_pattern
from gpu_alloc_verify.oracles.token_streams import TokenStreams
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

_PACK = {"f16": "<e", "f32": "<f", "f64": "<d", "i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q"}

ArgValue = int | bool | float | MemRefView
SourceStatus = Literal["ok", "unsupported", "unknown"]


# The program uses something the reference semantics does not model: the run
# ends "unsupported" (one type with `oracles.llvm_values.Unsupported`).
Unsupported = InterpreterDeclined


def element_bytes(value: int, elem: str) -> bytes:
    """The in-memory bytes of the integer `value` as an `elem` element."""
    if elem == "bf16":  # the high half of the f32
        return struct.pack("<f", float(value))[2:]
    if elem.startswith("f"):
        return struct.pack(_PACK[elem], float(value))
    bits = ELEM_BYTES[elem] * 8
    return (value & ((1 << bits) - 1)).to_bytes(ELEM_BYTES[elem], "little")


@dataclass
class SourceRun:
    status: SourceStatus
    outcome: Outcome | None
    unawaited: list[str] = field(default_factory=list)  # tokens never awaited on this path
    reason: str = ""


@dataclass
class _Buffer:
    ptr: int
    type: prog.MemRefType
    sizes: tuple[int, ...]

    @property
    def elems(self) -> int:
        return prod(self.sizes)

    @property
    def nbytes(self) -> int:
        return self.elems * ELEM_BYTES[self.type.elem]

    def view(self) -> MemRefView:
        return MemRefView(self.ptr, 0, self.sizes, row_major_strides(self.sizes),
                          self.type.elem)


def row_major_strides(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def argument_sizes(t: prog.MemRefType, default: int) -> tuple[int, ...]:
    """The shape of a buffer passed in: dynamic dimensions are `default`."""
    return tuple(default if d is None else d for d in t.shape)


def bind_buffers(fn: prog.Function, rt: Runtime, default_size: int) -> dict[str, MemRefView]:
    """The buffers `fn` takes, made on `rt` as its caller would: managed memory
    labelled by the argument ("%buf0#0"), element k holding k + 1."""
    out: dict[str, MemRefView] = {}
    for arg in fn.args:
        if not isinstance(arg.type, prog.MemRefType):
            continue
        sizes = argument_sizes(arg.type, default_size)
        rt.set_location(arg.name)
        buf = _Buffer(rt.host_alloc(prod(sizes) * ELEM_BYTES[arg.type.elem], "managed"),
                      arg.type, sizes)
        rt.initialize(buf.ptr, b"".join(element_bytes(k + 1, arg.type.elem)
                                        for k in range(buf.elems)))
        out[arg.name] = buf.view()
    rt.set_location(None)
    return out


def scalar_value(value: int, elem: str) -> int | float:
    """A launch's scalar operand as the kernel receives it."""
    if elem in prog.FLOAT_TYPES:
        return float(value)
    return value & ((1 << ELEM_BYTES[elem] * 8) - 1)


class _Interp:
    def __init__(self, fn: prog.Function, args: Mapping[str, ArgValue], rt: Runtime) -> None:
        self.fn = fn
        self.args = args
        self.rt = rt
        self.events: dict[str, int] = {}  # token name -> event standing for it
        # token name -> its current instance (what it implies: `self.tokens`)
        self.covers: dict[str, int] = {}
        self.instance: dict[str, int] = {}  # token name -> its current instance id
        self.produced: dict[int, str] = {}
        self.tokens = TokenStreams(rt)
        self.buffers: dict[str, _Buffer] = {
            name: _Buffer(v.ptr, _arg_type(fn, name), v.sizes)
            for name, v in args.items() if isinstance(v, MemRefView)
        }
        self.values: dict[str, ArgValue] = dict(args)  # index values: args, memref.dim
        self.all_events: list[int] = []

    def arg(self, name: str) -> ArgValue:
        if name not in self.args:
            raise Unsupported(f"no value given for argument {name} of @{self.fn.name}")
        return self.args[name]

    # -- tokens -------------------------------------------------------------
    def stream_after(self, deps: tuple[str, ...]) -> int:
        return self.tokens.stream_after([self.events[d] for d in deps])

    def complete(self, token: str | None, s: int, deps: tuple[str, ...]) -> None:
        if token is None:  # a synchronous op: finish before the host goes on
            self.rt.stream_synchronize(s)
            return
        e = self.rt.event_create()
        self.all_events.append(e)
        self.rt.event_record(e, s)
        self.tokens.recorded(e, s)
        inst = len(self.produced)
        self.produced[inst] = token
        self.events[token] = e
        self.instance[token] = inst
        self.covers[token] = inst
        self.tokens.implied[inst] = tuple(self.covers[d] for d in deps)

    def bind(self, names: tuple[str, ...], values: tuple[str, ...]) -> None:
        """`scf.yield` / `iter_args`: each name now stands for the completion
        its value stands for (no new event: a yielded token is the same fact).
        All values are read before any name is bound, as block arguments are."""
        got = [(self.events[v], self.covers[v]) for v in values]
        for name, (event, inst) in zip(names, got, strict=True):
            self.events[name] = event
            self.covers[name] = inst

    def host_wait(self, deps: tuple[str, ...]) -> None:
        for d in deps:
            self.rt.event_synchronize(self.events[d])
            self.tokens.await_(self.covers[d])

    # -- ops ----------------------------------------------------------------
    def run(self, ops: tuple[prog.Op, ...]) -> None:
        for op in ops:
            self.rt.set_location(op.id)
            self.op(op)

    def op(self, op: prog.Op) -> None:
        run_op = prog.op_handler(_OP_RUNNERS, op, "oracles.source_interp", "rule", Unsupported)
        run_op(self, op)

    def op_wait(self, op: prog.Wait) -> None:
        if op.token is None:
            self.host_wait(op.deps)
        else:
            self.complete(op.token, self.stream_after(op.deps), op.deps)

    def op_alloc(self, op: prog.Alloc) -> None:
        sizes = self.shape(op.type, op.dyn_sizes)
        nbytes = prod(sizes) * ELEM_BYTES[op.type.elem]
        if op.token is None:
            ptr = self.rt.mem_alloc_sync(nbytes, op.host_shared)
        else:
            s = self.stream_after(op.deps)
            ptr = self.rt.mem_alloc(nbytes, s, op.host_shared)
            self.complete(op.token, s, op.deps)
        self.buffers[op.result] = _Buffer(ptr, op.type, sizes)

    def op_dealloc(self, op: prog.Dealloc) -> None:
        self.host_wait_quietly(op.deps)
        s = self.stream_after(op.deps)
        self.rt.mem_free(self.buffers[op.memref].ptr, s)
        self.complete(op.token, s, op.deps)

    def op_memset(self, op: prog.Memset) -> None:
        buf = self.buffers[op.dst]
        pattern = element_bytes(op.value, op.type.elem)
        s = self.stream_after(op.deps)
        memset_pattern(self.rt, buf.ptr, pattern, buf.elems, s)
        self.complete(op.token, s, op.deps)

    def op_host_alloc(self, op: prog.HostAlloc) -> None:
        sizes = self.shape(op.type, op.dyn_sizes)
        ptr = self.rt.host_alloc(prod(sizes) * ELEM_BYTES[op.type.elem])
        self.buffers[op.result] = _Buffer(ptr, op.type, sizes)

    def op_host_dealloc(self, op: prog.HostDealloc) -> None:
        self.rt.host_free(self.buffers[op.memref].ptr)

    def op_memcpy(self, op: prog.Memcpy) -> None:
        dst, src = self.buffers[op.dst], self.buffers[op.src]
        s = self.stream_after(op.deps)
        self.rt.memcpy(dst.ptr, src.ptr, dst.nbytes, s)
        self.complete(op.token, s, op.deps)

    def op_host_store(self, op: prog.HostStore) -> None:
        buf = self.buffers[op.memref]
        self.rt.host_write(buf.ptr, element_bytes(op.value, op.type.elem))

    def op_host_load(self, op: prog.HostLoad) -> None:
        buf = self.buffers[op.memref]
        self.rt.host_read(buf.ptr, ELEM_BYTES[op.type.elem])

    def op_if(self, op: prog.If) -> None:
        taken = bool(self.arg(op.cond))
        self.run(op.then if taken else op.orelse)
        self.bind(op.results, op.then_yield if taken else op.else_yield)

    def op_for(self, op: prog.For) -> None:
        carried = tuple(a for a, _ in op.iter_args)
        self.bind(carried, tuple(init for _, init in op.iter_args))
        for _ in range(op.trip_count):
            self.run(op.body)
            self.bind(carried, op.yields)
        self.bind(op.results, carried)  # zero trips: the initial tokens

    def op_dim(self, op: prog.Dim) -> None:
        """Reads the descriptor only: nothing a runtime sees."""
        self.values[op.result] = self.buffers[op.memref].sizes[op.index]

    def host_wait_quietly(self, deps: tuple[str, ...]) -> None:
        """Wait for deps on the host without counting them as awaited by the source."""
        for d in deps:
            self.rt.event_synchronize(self.events[d])

    def shape(self, t: prog.MemRefType, dyn_sizes: tuple[str, ...]) -> tuple[int, ...]:
        """The sizes of a new buffer: its dynamic dimensions are the values
        `dyn_sizes` names, in order."""
        return tuple(d if d is not None else self.size(n)
                     for d, n in zip(t.shape, _dyn_names(t, dyn_sizes), strict=True))

    def size(self, name: str) -> int:
        if name not in self.values:
            raise Unsupported(f"no value given for {name} of @{self.fn.name}")
        value = self.values[name]
        if isinstance(value, MemRefView):
            raise Unsupported(f"{name} of @{self.fn.name} is a buffer, not a size")
        return int(value)

    def launch(self, op: prog.Launch) -> None:
        """Device work on the op's own stream, as a memset is."""
        from gpu_alloc_verify.oracles.kernel_interp import catalogue_kernel

        kernel = catalogue_kernel(op.kernel)
        args: list[KernelArg] = [self.buffers[b].view() for b in op.buffers]
        if op.scalar is not None:
            raw = op.scalar if isinstance(op.scalar, int) else self.values[op.scalar]
            if isinstance(raw, MemRefView):
                raise Unsupported(f"{op.id}: a buffer as the scalar operand")
            args.append(scalar_value(int(raw), op.kernel.type.elem)
                        if not isinstance(raw, float) else raw)
        grid = tuple(s if isinstance(s, int) else self.size(s) for s in op.grid)
        block = tuple(s if isinstance(s, int) else self.size(s) for s in op.block)
        s = self.stream_after(op.deps)
        self.rt.launch(kernel, (grid[0], grid[1], grid[2]), (block[0], block[1], block[2]),
                       args, s)
        self.complete(op.token, s, op.deps)

    def finish(self) -> list[str]:
        self.rt.set_location(None)
        for e in self.all_events:
            self.rt.event_destroy(e)
        for s in self.tokens.streams:
            self.rt.stream_destroy(s)
        return [self.produced[i] for i in sorted(set(self.produced) - self.tokens.awaited)]


# How `_Interp.op` runs each kind of op (`OP_KINDS`; tests/model/test_op_dispatch.py).
_OP_RUNNERS: dict[type, Callable[[_Interp, Any], None]] = {
    prog.Wait: _Interp.op_wait, prog.Alloc: _Interp.op_alloc, prog.Dealloc: _Interp.op_dealloc,
    prog.Memset: _Interp.op_memset, prog.Launch: _Interp.launch,
    prog.HostAlloc: _Interp.op_host_alloc, prog.HostDealloc: _Interp.op_host_dealloc,
    prog.Memcpy: _Interp.op_memcpy, prog.HostStore: _Interp.op_host_store,
    prog.HostLoad: _Interp.op_host_load, prog.If: _Interp.op_if, prog.For: _Interp.op_for,
    prog.Dim: _Interp.op_dim,
}


def _dyn_names(t: prog.MemRefType, names: tuple[str, ...]) -> list[str]:
    """Per dimension: the value naming a dynamic size, "" for a static one."""
    it = iter(names)
    return ["" if d is not None else next(it) for d in t.shape]


def _arg_type(fn: prog.Function, name: str) -> prog.MemRefType:
    for arg in fn.args:
        if arg.name == name and isinstance(arg.type, prog.MemRefType):
            return arg.type
    raise Unsupported(f"@{fn.name} has no buffer argument {name}")


def unmodelled(fn: prog.Function) -> str | None:
    """What in `fn` the reference semantics does not run, if anything: a
    kernel the kernel interpreter cannot run."""
    launches = [op for op in prog.walk_ops(fn.body) if isinstance(op, prog.Launch)]
    if not launches:
        return None
    from gpu_alloc_verify.oracles.kernel_interp import catalogue_kernel

    for op in launches:
            try:
                catalogue_kernel(op.kernel)
            except KernelUnsupported as e:
                return f"kernel @{op.kernel.name} launched at {op.id}: {e}"
    return None


# `program_unmodelled`'s answer by the program's identity, while it lives: a
# program is immutable, and each of its functions' checks asks again.
_UNMODELLED: dict[int, tuple[weakref.ref[prog.Program], str | None]] = {}


def program_unmodelled(program: prog.Program) -> str | None:
    """What in `program` the reference semantics does not run, if anything."""
    key = id(program)
    known = _UNMODELLED.get(key)
    if known is not None and known[0]() is program:
        return known[1]
    found = None
    for fn in program.functions:
        reason = unmodelled(fn)
        if reason is not None:
            found = f"the reference semantics does not run {reason}"
            break

    def forget(ref: weakref.ref[prog.Program]) -> None:
        if _UNMODELLED.get(key, (None, None))[0] is ref:
            del _UNMODELLED[key]

    _UNMODELLED[key] = (weakref.ref(program, forget), found)
    return found


def run_function(fn: prog.Function, args: Mapping[str, ArgValue], rt: Runtime) -> SourceRun:
    """Run one function of a program against `rt`; `args` maps "%cond0" to a value."""
    reason = unmodelled(fn)
    if reason is not None:
        return SourceRun("unknown", None, reason=f"the reference semantics does not run {reason}")
    interp = _Interp(fn, args, rt)
    try:
        interp.run(fn.body)
        unawaited = interp.finish()
        outcome = rt.outcome()  # kernels run here at the latest
    except (Unsupported, KernelUnsupported) as e:
        return SourceRun("unsupported", None, reason=str(e))
    return SourceRun("ok", outcome, unawaited)


def function_named(program: prog.Program, name: str) -> prog.Function:
    for fn in program.functions:
        if fn.name == name:
            return fn
    raise KeyError(f"program has no function @{name}")
