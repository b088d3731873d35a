"""Typed model of the source GPU programs the harness generates and checks.

A program is a module of functions; a function body is a tree of ops (`If`
and `For` hold nested bodies).  Every op has a stable id ("op3"), printed as
its MLIR location, so that a lowered runtime call can be traced back to the
source op it came from (`mlir-opt` keeps locations through conversion).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, get_args

# Buffer element types the generator uses (16 lowers a memset of f32 / i32
# only, 18-22 also of 16-bit types, none of 64-bit).  bf16 prints and lowers
# too (19 and 22: mgpuMemset16), but the lowered-IR interpreter does not
# read bf16 values yet (`oracles.fast_ir.FLOAT_FMT`).
ELEMENT_TYPES = ("f32", "i32", "f16", "i64", "i16", "f64")
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
SCALAR_TYPES = ("f32", "i32")  # types of the scalar function arguments


@dataclass(frozen=True)
class MemRefType:
    shape: tuple[int | None, ...]  # None is a dynamic dimension
    elem: str = "f32"
    space: int | None = None  # memory space, as in `memref<4xf32, 1>`
    # A layout other than the identity (a view's), as in
    # `memref<2xf32, strided<[1], offset: 2>>`; "" is the identity.
    layout: str = ""

    def __str__(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        layout = f", {self.layout}" if self.layout else ""
        space = "" if self.space is None else f", {self.space}"
        return f"memref<{dims}{self.elem}{layout}{space}>"

    @property
    def num_dynamic(self) -> int:
        return sum(1 for d in self.shape if d is None)

    def mangled(self) -> str:
        """The type in a symbol name: `Dx4xf32_s1` for `memref<?x4xf32, 1>`."""
        dims = "".join(("D" if d is None else str(d)) + "x" for d in self.shape)
        return dims + self.elem + ("" if self.space is None else f"_s{self.space}")


@dataclass(frozen=True)
class _AsyncFields:
    """The fields every async op but `Alloc` (its result comes first) starts
    with: the id, the token (None: synchronous) and the tokens it depends on."""

    id: str
    token: str | None
    deps: tuple[str, ...]


@dataclass(frozen=True)
class Wait(_AsyncFields):
    """`gpu.wait`: async (returns a token) or a host synchronization point."""

    deps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Alloc:
    id: str
    result: str
    token: str | None
    deps: tuple[str, ...]
    host_shared: bool
    type: MemRefType
    dyn_sizes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dealloc(_AsyncFields):
    memref: str
    type: MemRefType


@dataclass(frozen=True)
class Memset(_AsyncFields):
    dst: str
    type: MemRefType
    value: int


@dataclass(frozen=True)
class Memcpy(_AsyncFields):
    dst: str
    src: str
    type: MemRefType  # the destination's type
    src_type: MemRefType | None = None  # the source's, where it differs (a view)

    @property
    def source_type(self) -> MemRefType:
        return self.type if self.src_type is None else self.src_type


@dataclass(frozen=True)
class HostStore:
    """`memref.store` from the host into a host_shared buffer (element 0)."""

    id: str
    memref: str
    type: MemRefType
    value: int


@dataclass(frozen=True)
class HostLoad:
    """`memref.load` on the host from a host_shared buffer (element 0)."""

    id: str
    result: str
    memref: str
    type: MemRefType


# A launch size: a constant, or the name of an index value.
Size = int | str
Sizes = tuple[Size, Size, Size]  # a grid or a block: x, y, z


@dataclass(frozen=True)
class KernelRef:
    """One kernel of the catalogue (`verify.model.kernels`): a shape at a buffer type."""

    shape: str  # a key of verify.model.kernels.SHAPES
    type: MemRefType

    @property
    def name(self) -> str:
        return f"{self.shape}_{self.type.mangled()}"


@dataclass(frozen=True)
class Launch(_AsyncFields):
    """`gpu.launch_func @kernels::@<kernel>`: sync (the host waits for the
    kernel) or async (returns a token), on buffers of one type."""

    kernel: KernelRef
    buffers: tuple[str, ...]  # the shape's buffer operands, in order
    scalar: int | str | None = None  # a constant value or a scalar value's name
    grid: Sizes = (1, 1, 1)
    block: Sizes = (1, 1, 1)


@dataclass(frozen=True)
class HostAlloc:
    """`memref.alloc`: a host buffer (plain host memory, `malloc`)."""

    id: str
    result: str
    type: MemRefType
    dyn_sizes: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostDealloc:
    """`memref.dealloc` of a host buffer."""

    id: str
    memref: str
    type: MemRefType


@dataclass(frozen=True)
class Dim:
    """`memref.dim`: the size of dimension `index` of a buffer (an index value)."""

    id: str
    result: str
    memref: str
    type: MemRefType
    index: int = 0


@dataclass(frozen=True)
class If:
    id: str
    cond: str  # an i1 function argument
    then: tuple[Op, ...]
    orelse: tuple[Op, ...] = ()
    # Tokens that cross the branch (`scf.yield`): `results[i]` is
    # `then_yield[i]` or `else_yield[i]`, whichever branch ran.
    results: tuple[str, ...] = ()
    then_yield: tuple[str, ...] = ()
    else_yield: tuple[str, ...] = ()
    # "scf": `scf.if`; "cf": `cf.cond_br` to two blocks that `cf.br` to a
    # join block, the tokens as block arguments (top level of a function only).
    form: str = "scf"


@dataclass(frozen=True)
class For:
    id: str
    iv: str
    trip_count: int
    body: tuple[Op, ...]
    # Loop-carried tokens (`iter_args`): (block argument, initial value);
    # each iteration yields `yields`, the loop returns the last as `results`.
    iter_args: tuple[tuple[str, str], ...] = ()
    yields: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    # "scf": `scf.for`; "while": `scf.while` counting to the trip count; "cf":
    # blocks and `cf.br`/`cf.cond_br`, the count and tokens as block arguments
    # (top level of a function only).
    form: str = "scf"
    trip_arg: str | None = None  # the trip count is this index argument instead


# The view kinds the generator draws (`View.kind`): each is `memref.<kind>`.
# (`expand_shape` is not drawn: its custom form changed in LLVM 19, which
# asks for `output_shape`, so no one text parses on 16 and on 19/22.)
VIEW_KINDS = ("subview", "cast", "reinterpret_cast", "collapse_shape")


@dataclass(frozen=True)
class View:
    """`memref.<kind>` of a buffer: the same memory, another type.  A subview
    takes `sizes` elements from `offsets` (unit strides); a reinterpret_cast
    and a collapse_shape see the buffer flat; a cast makes dimensions dynamic."""

    id: str
    result: str
    kind: str  # one of VIEW_KINDS
    source: str
    source_type: MemRefType
    type: MemRefType
    offsets: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Execute:
    """`async.execute`: `body` runs concurrently with the host once the
    `!async.token`s `deps` are ready; `operands` pass earlier executes'
    values in ((outer `!async.value<!gpu.async.token>`, the token's name
    inside)); `yields` leave as `results` (`!async.value<!gpu.async.token>`),
    `token` (an `!async.token`) completes with the body."""

    id: str
    token: str
    deps: tuple[str, ...]
    operands: tuple[tuple[str, str], ...]
    body: tuple[Op, ...]
    yields: tuple[str, ...] = ()
    results: tuple[str, ...] = ()


@dataclass(frozen=True)
class Await:
    """`async.await`: of an `!async.token` (`result` None), or of an
    `!async.value<!gpu.async.token>`, whose token becomes `result`."""

    id: str
    operand: str
    result: str | None = None


@dataclass(frozen=True)
class Call:
    """`func.call @callee`: arguments and results of the types given
    (tokens are `!gpu.async.token`)."""

    id: str
    callee: str
    args: tuple[str, ...]
    arg_types: tuple[str | MemRefType, ...]
    results: tuple[str, ...] = ()
    result_types: tuple[str | MemRefType, ...] = ()


@dataclass(frozen=True)
class HostRegister:
    """`gpu.host_register` of a host buffer, seen unranked through a
    `memref.cast` named `unranked` (located at `<id>.cast`)."""

    id: str
    memref: str
    type: MemRefType
    unranked: str


@dataclass(frozen=True)
class SetDevice:
    """`gpu.set_default_device` of an i32 value (a constant or an argument)."""

    id: str
    device: int | str


@dataclass(frozen=True)
class GpuLaunch(_AsyncFields):
    """An un-outlined `gpu.launch` (one block of one thread) whose body
    stores `value` at element 0 of `memref`."""

    memref: str
    type: MemRefType
    value: int


Op = (Wait | Alloc | Dealloc | Memset | Memcpy | Launch | HostStore | HostLoad | HostAlloc
      | HostDealloc | Dim | If | For | View | Execute | Await | Call | HostRegister | SetDevice
      | GpuLaunch)
# The op classes a function body may hold, in the order of `Op`.  Each consumer
# of the model (printer, interpreters, builders, feature tags) dispatches on
# `type(op)` through a table keyed by these (`op_handler`); `tests/model/test_op_table.py` checks
# that every table covers every kind of the op table (`verify.model.op_specs`,
# one `OpSpec` per kind).  (Not `generators.core.OP_KINDS`, the names of the
# kinds the generator draws.)
OP_KINDS: tuple[type, ...] = get_args(Op)
AsyncOp = Wait | Alloc | Dealloc | Memset | Memcpy | Launch  # returns a token when async
ASYNC_OPS = (Wait, Alloc, Dealloc, Memset, Memcpy, Launch)
# Op kinds the model prints but the in-process consumers (the light source
# reader, the xDSL module builder, the source interpreter, the reader of a
# user's file) do not build: a program holding one is judged from its text,
# as a user's file is (`in_process_gap`).
TEXT_ONLY_OPS: tuple[type, ...] = (View, Execute, Await, Call, HostRegister, SetDevice,
                                   GpuLaunch)
TOKEN_TYPE = "!gpu.async.token"


@dataclass(frozen=True)
class Arg:
    """A typed value: a function argument, or a returned value."""

    name: str
    type: str | MemRefType  # "i1", "index", a SCALAR_TYPES one, or a buffer


@dataclass(frozen=True)
class Function:
    name: str
    args: tuple[Arg, ...]
    body: tuple[Op, ...]
    results: tuple[Arg, ...] = ()  # values returned, top-level ones of `body`
    private: bool = False  # a callee (`func.call`), not run on its own


@dataclass(frozen=True)
class Program:
    functions: tuple[Function, ...]
    # Free-form tags the generator attaches (e.g. "unawaited-token").
    tags: frozenset[str] = field(default_factory=frozenset)

    def walk(self) -> Iterator[Op]:
        for fn in self.functions:
            yield from walk_ops(fn.body)

    def op_count(self) -> int:
        return sum(1 for _ in self.walk())

    def op_by_id(self) -> dict[str, Op]:
        return {op.id: op for op in self.walk()}

    @cached_property
    def kernels(self) -> tuple[KernelRef, ...]:
        """The kernels the program launches (its `gpu.module @kernels`), by name.
        Kept once found: a program is immutable, and the checks of each of
        its functions ask (quadratic in a file of many functions)."""
        found = {op.kernel.name: op.kernel for op in self.walk() if isinstance(op, Launch)}
        return tuple(found[name] for name in sorted(found))

    def to_mlir(self, loc_prefix: str = "") -> str:
        from gpu_alloc_verify.verify.model.printer import print_program

        return print_program(self, loc_prefix=loc_prefix)

    def __repr__(self) -> str:
        """The program as MLIR (what a failing Hypothesis example prints);
        its tags, if any, as a leading MLIR comment."""
        tags = f"// tags: {', '.join(sorted(self.tags))}\n" if self.tags else ""
        return tags + self.to_mlir()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """Hypothesis' printer (and IPython's): the MLIR text, on its own lines."""
        p.text("\n" + repr(self))


_H = TypeVar("_H")


def op_handler(table: Mapping[type, _H], op: object, consumer: str, what: str,
               error: Callable[[str], Exception] = TypeError) -> _H:
    """The entry of `consumer`'s dispatch table (keyed by op class, `OP_KINDS`)
    for the kind of `op`; none is an `error` that names the consumer and the kind."""
    handler = table.get(type(op))
    if handler is None:
        raise error(f"{consumer}: no {what} for op kind {type(op).__name__}: {op!r}")
    return handler


def walk_ops(ops: tuple[Op, ...]) -> Iterator[Op]:
    for op in ops:
        yield op
        if isinstance(op, If):
            yield from walk_ops(op.then)
            yield from walk_ops(op.orelse)
        elif isinstance(op, (For, Execute)):
            yield from walk_ops(op.body)


def crosses_control_flow(program: Program) -> bool:
    """Some token is yielded by a branch or carried by a loop: the source
    runner (`oracles.source_interp`) does not run such programs."""
    return any((isinstance(op, If) and op.results) or (isinstance(op, For) and op.iter_args)
               for op in program.walk())


def in_process_gap(program: Program) -> str:
    """Why the in-process consumers cannot take `program` (it is then judged
    from its printed text, as a user's file is); "" when they can."""
    for fn in program.functions:
        if fn.private or any(a.type == TOKEN_TYPE for a in (*fn.args, *fn.results)):
            return f"@{fn.name} passes a !gpu.async.token across a call"
    for op in program.walk():
        if isinstance(op, TEXT_ONLY_OPS):
            return f"it holds {_TEXT_ONLY_WORDS[type(op)]}"
        if isinstance(op, (If, For)) and op.form != "scf":
            return f"it holds {'scf.while' if op.form == 'while' else 'cf branches'}"
        if isinstance(op, For) and op.trip_arg is not None:
            return "it holds a loop whose trip count is an argument"
        if isinstance(op, Memcpy) and op.src_type is not None:
            return "it holds a copy between buffers of different types"
    return ""


_TEXT_ONLY_WORDS = {View: "a memref view", Execute: "async.execute", Await: "async.await",
                    Call: "func.call", HostRegister: "gpu.host_register",
                    SetDevice: "gpu.set_default_device", GpuLaunch: "an un-outlined gpu.launch"}


def is_sync(op: Op) -> bool:
    return isinstance(op, ASYNC_OPS) and op.token is None
