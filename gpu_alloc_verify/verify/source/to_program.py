"""Reading MLIR text into the generator's `Program` model, where it fits.

`check` does not need this: it reads any module as written
(`verify.source.user_file`, `verify.source.facts`).  The model is needed where
the harness re-runs a program it printed (replaying a campaign record,
`verify.api`) and by what executes programs (the differential oracle, the
in-process xDSL lowerings); for a user's file they use it when the file fits
(`model_of`), and say why not otherwise (`model_gap`).

The text is first normalized to generic form by any `mlir-opt` found (no
pass); without one, xDSL reads it directly (generic form only).  Ops outside
the model are an error that names the op and its position.

Everything `verify.model.printer` prints is read back: for a generated
program P, reading `P.to_mlir()` gives P again up to the names of values
(`tests/source/test_source_reader_kernels.py`).  Kernels are read by name only: a
`gpu.func` of the `gpu.module @kernels` must be a catalogue kernel
(`verify.model.kernels`) by its name and parameter types, and its body is
not read.  A program that launches any is tagged `kernels-by-name`, and
`kernel_source` gives the text it was read from, so that what runs the
program (the differential oracle) can check the bodies are the catalogue's
before it runs catalogue kernels in their place.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable
from typing import Any

from gpu_alloc_verify.verify.ir import locations
from gpu_alloc_verify.verify.ir.attrs import attr_of, func_name, launch_operands, source_loc
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.parse import NotParsed, parse
from gpu_alloc_verify.verify.ir.types import memref_text
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.kernels import SHAPES, kernel_params, parse_kernel_name
from gpu_alloc_verify.verify.model.op_specs import supported_text
from gpu_alloc_verify.verify.source.text import normalize
from gpu_alloc_verify.verify.tools.commands import default_reader

KERNELS_BY_NAME = "kernels-by-name"  # the tag of a program whose kernels were read by name
_IGNORED = {"func.return", "scf.yield"}
# Element types the model's buffers have (those `verify.lowerings.xdsl_build` builds).
_ELEMENTS = frozenset({*prog.ELEMENT_TYPES, *prog.FLOAT_TYPES, "index"})
_RESULT_TYPES = frozenset({"i1", "index", *_ELEMENTS})
_SPACE = re.compile(r"(\d+)(?::i64)?")
_TOKEN = "gpu.async.token"
# Attributes of a gpu.func the model holds (their values are checked).
_KERNEL_ATTRS = frozenset({"function_type", "sym_name", "gpu.kernel", "workgroup_attributions"})
_UNMODELLED = (f"is not modelled (supported: {supported_text()}, arith.constant); remove it "
               "or rewrite it with those ops")


def model_of(generic: str, name: str) -> prog.Program | None:
    """The model of already normalized generic text, or None where it does not fit."""
    try:
        return _parse_generic(generic, name, file_ids=True)
    except Exception:  # outside the model, whatever the reader tripped on
        return None


def model_gap(generic: str, name: str) -> str:
    try:
        _parse_generic(generic, name, file_ids=True)
    except SourceParseError as e:
        return str(e)
    except Exception as e:  # noqa: BLE001 - any reason is the answer asked for
        return f"{name}: {type(e).__name__}: {e}"
    return ""


def program_from_text(text: str, name: str = "<input>") -> prog.Program:
    """The model of MLIR text, normalized by the newest mlir-opt found (as is
    without one: generic form only)."""
    tool = default_reader()
    return _parse_generic(normalize(text, name, tool) if tool else text, name)


# The generic text each program tagged `kernels-by-name` was read from, by the
# program's identity (programs equal up to kernel bodies are equal), while
# the program lives.
_SOURCES: dict[int, tuple[weakref.ref[prog.Program], str]] = {}


def kernel_source(program: prog.Program) -> str | None:
    """The text (generic form) `program` was read from, holding the `gpu.func`
    bodies its model leaves out; None for a program not read by this module
    (a generated one, or one copied since)."""
    entry = _SOURCES.get(id(program))
    return entry[1] if entry is not None and entry[0]() is program else None


def _remember(program: prog.Program, text: str) -> None:
    key = id(program)

    def forget(ref: weakref.ref[prog.Program]) -> None:
        if _SOURCES.get(key, (None, ""))[0] is ref:
            del _SOURCES[key]

    _SOURCES[key] = (weakref.ref(program, forget), text)


def _parse_generic(generic: str, name: str, file_ids: bool = False) -> prog.Program:
    try:  # `_Reader` walks xDSL's classes; typed pointers stay as written
        module = parse(generic, side="source", name=name, reader="xdsl", opaque=False)
    except NotParsed as e:
        if e.at:
            raise SourceParseError(f"{name}:{e.at[0]}:{e.at[1]}: not valid MLIR: "
                                   f"{e.lines[-1]}; fix the file there") from e.error
        raise SourceParseError(f"{name}: not valid MLIR: {e.lines[0] if e.lines else e}") \
            from e.error
    program = _Reader(name, file_ids).module(module)
    if KERNELS_BY_NAME in program.tags:
        _remember(program, generic)
    return program


class _Reader:
    def __init__(self, name: str, file_ids: bool = False) -> None:
        self.file = name
        self.file_ids = file_ids
        self.names: dict[Any, str] = {}
        self.consts: dict[Any, int | float] = {}
        self.count = 0
        self.used_ids: set[str] = set()
        self.reserved: set[str] = set()  # the name locations of the text
        self.index_values: set[Any] = set()  # index arguments, memref.dim results, ivs
        self.scalars: set[Any] = set()  # scalar (f32 / i32) arguments
        self.kernels: dict[str, prog.KernelRef] = {}  # the gpu.func of @kernels by name

    def where(self, op: Any) -> str:
        """The op's line and column in the file being read."""
        pos = locations.position(getattr(op, "location", None))
        at = locations.split_file_key(pos) if pos else None
        return f"{self.file}:{at[1]}:{at[2]}" if at else self.file

    def fail(self, op: Any, why: str) -> SourceParseError:
        return SourceParseError(f"{self.where(op)}: {why}")

    def name(self, value: Any, prefix: str = "v") -> str:
        if value not in self.names:
            self.count += 1
            self.names[value] = f"%{prefix}{self.count}"
        return self.names[value]

    def op_id(self, op: Any) -> str:
        # A name location is the op's id; a file location too where the text
        # itself is lowered (it is then the key lowered calls carry, see
        # `verify.extract.facts.source_loc`).
        loc = locations.parse(str(getattr(op, "location", "")))
        named = loc.name if loc is not None and loc.kind == "name" and not loc.children \
            else None
        key = named or (source_loc(op) if self.file_ids else None)
        if key and key not in self.used_ids:
            self.used_ids.add(key)
            return key
        if named:
            # A pass (gpu-async-region) copied the op's location onto the ops
            # it made for it: each copy is named after it, `op2.2`.
            n = 2
            while f"{named}.{n}" in self.used_ids:
                n += 1
            self.used_ids.add(f"{named}.{n}")
            return f"{named}.{n}"
        # A fresh id, never one a later op of the text is named.
        k = len(self.used_ids) + 1
        while f"op{k}" in self.used_ids or f"op{k}" in self.reserved:
            k += 1
        self.used_ids.add(f"op{k}")
        return f"op{k}"

    # -- module level ---------------------------------------------------------
    def module(self, module: Any) -> prog.Program:
        for inner in module.walk():
            loc = locations.parse(str(getattr(inner, "location", "")))
            if loc is not None and loc.kind == "name" and not loc.children:
                self.reserved.add(loc.name)
        ops = list(module.body.blocks[0].ops)
        for op in ops:
            if op_name(op) == "gpu.module":
                self.gpu_module(op)
            elif op_name(op) != "func.func":
                raise self.fail(op, f"'{op_name(op)}' at module level is not modelled; "
                                "put the gpu ops inside func.func")
        funcs = [self.function(op) for op in ops if op_name(op) == "func.func"]
        if not funcs:
            raise SourceParseError(f"{self.file}: no func.func in the module")
        program = prog.Program(tuple(funcs))
        return prog.Program(program.functions, frozenset({KERNELS_BY_NAME})) if program.kernels \
            else program

    def gpu_module(self, op: Any) -> None:
        """`gpu.module @kernels`: its `gpu.func`s, by name."""
        sym = func_name(op)
        if sym != "kernels" or self.kernels:
            raise self.fail(op, f"gpu.module @{sym} is not modelled: the model holds one "
                            "gpu.module, @kernels, of catalogue kernels")
        extra = _extra_attrs(op, frozenset({"sym_name"}))
        if extra:
            raise self.fail(op, f"gpu.module @kernels with {', '.join(extra)} is not modelled")
        for fn in op.regions[0].blocks[0].ops:
            name = op_name(fn)
            if name == "gpu.module_end":
                continue
            if name != "gpu.func":
                raise self.fail(fn, f"'{name}' in gpu.module @kernels is not modelled; the "
                                "model holds catalogue kernels (gpu.func) there only")
            ref = self.kernel(fn)
            self.kernels[ref.name] = ref

    def kernel(self, fn: Any) -> prog.KernelRef:
        """The catalogue kernel a `gpu.func` is, by its name and parameter types."""
        sym = func_name(fn)
        ref = parse_kernel_name(sym)
        if ref is None:
            shapes = ", ".join(SHAPES)
            raise self.fail(fn, f"gpu.func @{sym} is not a catalogue kernel; the model holds "
                            f"kernels named <shape>_<type> ({shapes}; e.g. scale_16xf32, "
                            "see verify.model.kernels) only")
        if attr_of(fn, "gpu.kernel") is None:
            raise self.fail(fn, f"gpu.func @{sym} is not a kernel; the model holds kernels only")
        extra = _extra_attrs(fn, _KERNEL_ATTRS)
        if extra or _int(attr_of(fn, "workgroup_attributions")) not in (None, 0):
            raise self.fail(fn, f"gpu.func @{sym} with {', '.join(extra) or 'memory attributions'}"
                            " is not modelled")
        args = fn.regions[0].blocks[0].args if fn.regions and fn.regions[0].blocks else ()
        got = tuple(_memref_of(str(a.type)) or str(a.type) for a in args)
        want = kernel_params(ref)
        if got != want:
            raise self.fail(fn, f"gpu.func @{sym} takes ({', '.join(str(a.type) for a in args)});"
                            f" the catalogue's {ref.shape} at {ref.type} takes "
                            f"({', '.join(map(str, want))})")
        return ref

    # -- functions --------------------------------------------------------------
    def function(self, op: Any) -> prog.Function:
        fname = func_name(op)
        if not op.regions or not op.regions[0].blocks:
            raise self.fail(op, f"@{fname} is a declaration; the model holds bodies only")
        block = op.regions[0].blocks[0]
        args = tuple(self.argument(op, fname, i, a) for i, a in enumerate(block.args))
        body = self.ops(block)
        last = self.last_op(block)
        results: tuple[prog.Arg, ...] = ()
        if last is not None and op_name(last) == "func.return":
            results = tuple(self.result(last, fname, v) for v in last.operands)
        return prog.Function(fname, args, body, results)

    def last_op(self, block: Any) -> Any:
        """The block's last op (None for an empty block)."""
        return block.last_op

    def argument(self, op: Any, fname: str, i: int, arg: Any) -> prog.Arg:
        ty = str(arg.type)
        type_: str | prog.MemRefType = ty
        if ty == "i1":
            self.names[arg] = f"%cond{i}"
        elif ty == "index":
            self.names[arg] = f"%size{i}"
            self.index_values.add(arg)
        elif ty in prog.SCALAR_TYPES:
            self.names[arg] = f"%x{i}"
            self.scalars.add(arg)
        elif ty.startswith("memref<"):
            type_ = _memref_type(op, ty, self)
            self.names[arg] = f"%buf{i}"
        else:
            raise self.fail(op, f"argument {i} of @{fname} has type {ty}; only i1 (branch), "
                            f"index (size), {'/'.join(prog.SCALAR_TYPES)} (scalar) and memref "
                            "(buffer) arguments are modelled")
        return prog.Arg(self.names[arg], type_)

    def result(self, ret: Any, fname: str, value: Any) -> prog.Arg:
        ty = str(value.type)
        type_: str | prog.MemRefType | None = _memref_of(ty) if ty.startswith("memref<") else ty
        if value not in self.names or type_ is None or type_ not in _RESULT_TYPES \
                and not isinstance(type_, prog.MemRefType):
            raise self.fail(ret, f"@{fname} returns a {ty} value no modelled op makes (a "
                            "constant?); returning it is not modelled")
        return prog.Arg(self.names[value], type_)

    def ops(self, block: Any) -> tuple[prog.Op, ...]:
        out: list[prog.Op] = []
        for op in block.ops:
            res = self.op(op)
            if res is not None:
                out.append(res)
        return tuple(out)

    def op(self, op: Any) -> prog.Op | None:
        name = op_name(op)
        if name == "arith.constant":
            # Not `a or b`: xDSL's IntegerAttr of 0 is falsy.
            value = getattr(attr_of(op, "value"), "value", None)
            data = getattr(value, "data", None)
            if isinstance(data, (int, float)):
                self.consts[op.results[0]] = int(data) if isinstance(data, bool) else data
            return None
        if name in _IGNORED:
            return None
        handler = _HANDLERS.get(name)
        if handler is None:
            raise self.fail(op, f"'{name}' {_UNMODELLED}")
        return handler(self, op, self.op_id(op))

    # -- operands -------------------------------------------------------------
    def segments(self, op: Any) -> list[int] | None:
        seg = attr_of(op, "operandSegmentSizes")
        if seg is None:
            seg = attr_of(op, "operand_segment_sizes")
        return self.int_values(op, seg) if seg is not None else None

    def int_values(self, op: Any, attr: Any) -> list[int]:
        """The values of a dense integer array attribute of `op`."""
        return list(attr.get_values())

    def token_and_deps(self, op: Any, n_deps: int) -> tuple[str | None, tuple[str, ...]]:
        deps = tuple(self.name(v, "t") for v in op.operands[:n_deps])
        tok = [r for r in op.results if _TOKEN in str(r.type)]
        return (self.name(tok[0], "t") if tok else None), deps

    def n_token_operands(self, op: Any) -> int:
        return sum(1 for v in op.operands if _TOKEN in str(v.type))

    def buffer(self, op: Any, value: Any) -> tuple[str, prog.MemRefType]:
        """A buffer operand: its name and type."""
        return self.name(value, "m"), _memref_type(op, str(value.type), self)

    def index(self, op: Any, value: Any, what: str) -> str:
        """An index value the model names: an index argument, a `memref.dim`
        result or a loop's induction variable."""
        if value not in self.index_values:
            source = "a constant" if value in self.consts else "a value of another op"
            raise self.fail(op, f"{what} is {source}, not an index argument, memref.dim "
                            "result or loop variable; not modelled")
        return self.names[value]

    def size(self, op: Any, value: Any) -> prog.Size:
        """A launch size: an index constant, or a named index value."""
        const = self.consts.get(value)
        if isinstance(const, int) and const >= 0:
            return const
        return self.index(op, value, "a launch size")

    def integral(self, op: Any, value: Any, what: str) -> int:
        """The value of a constant that the model's int holds exactly: an
        integer, or an integral float other than -0.0."""
        const = self.consts.get(value)
        if isinstance(const, int):
            return const
        if isinstance(const, float) and const.is_integer() \
                and not (const == 0 and math.copysign(1.0, const) < 0):
            return int(const)
        why = "not a constant" if const is None else f"the constant {const}"
        raise self.fail(op, f"{what} is {why}; only integral constants are modelled")

    def at_zero(self, op: Any, indices: Any, what: str) -> None:
        """Host accesses in the model touch element 0 only."""
        for v in indices:
            const = self.consts.get(v)
            if not isinstance(const, int) or const != 0:
                raise self.fail(op, f"{what} at an index other than a constant 0 is not "
                                "modelled (the model touches element 0 only)")

    # -- ops --------------------------------------------------------------------
    def wait(self, op: Any, oid: str) -> prog.Op:
        token, deps = self.token_and_deps(op, len(op.operands))
        return prog.Wait(oid, token, deps)

    def alloc(self, op: Any, oid: str) -> prog.Op:
        seg = self.segments(op) or [self.n_token_operands(op), 0, 0]
        if len(seg) > 2 and seg[2]:
            raise self.fail(op, "gpu.alloc with symbol operands is not modelled")
        token, deps = self.token_and_deps(op, seg[0])
        mem = [r for r in op.results if "memref" in str(r.type)][0]
        mtype = _memref_type(op, str(mem.type), self)
        dyn = tuple(self.index(op, v, "a dynamic size of gpu.alloc")
                    for v in op.operands[seg[0]:seg[0] + seg[1]])
        shared = attr_of(op, "hostShared") is not None
        return prog.Alloc(oid, self.name(mem, "m"), token, deps, shared, mtype, dyn)

    def device_op(self, op: Any, oid: str) -> prog.Op:
        """gpu.dealloc, gpu.memset, gpu.memcpy."""
        name = op_name(op)
        n_tok = self.n_token_operands(op)
        token, deps = self.token_and_deps(op, n_tok)
        rest = list(op.operands[n_tok:])
        dst, mtype = self.buffer(op, rest[0])
        if name == "gpu.dealloc":
            return prog.Dealloc(oid, token, deps, dst, mtype)
        if name == "gpu.memset":
            value = self.integral(op, rest[1], "the value gpu.memset sets")
            return prog.Memset(oid, token, deps, dst, mtype, value)
        src, src_type = self.buffer(op, rest[1])
        if src_type != mtype:
            raise self.fail(op, f"gpu.memcpy from {src_type} to {mtype} is not modelled (the "
                            "model copies between buffers of one type)")
        return prog.Memcpy(oid, token, deps, dst, src, mtype)

    def launch(self, op: Any, oid: str) -> prog.Op:
        parts = launch_operands(op)
        if parts is None:
            raise self.fail(op, "gpu.launch_func with these operand segments is not modelled")
        ref = self.launched(op)
        extra = len(op.operands) - len(parts.deps) - 6 - len(parts.operands)
        if extra or parts.stream is not None:
            raise self.fail(op, "gpu.launch_func with cluster sizes, dynamic shared memory "
                            "or an async object is not modelled")
        token, deps = self.token_and_deps(op, len(parts.deps))
        s = [self.size(op, v) for v in parts.sizes]
        buffers, scalar = self.launch_args(op, ref, parts.operands)
        return prog.Launch(oid, token, deps, ref, buffers, scalar, (s[0], s[1], s[2]),
                      (s[3], s[4], s[5]))

    def launched(self, op: Any) -> prog.KernelRef:
        """The kernel `@kernels::@name` a launch names, as the gpu.module has it."""
        sym = attr_of(op, "kernel")
        root = getattr(getattr(sym, "root_reference", None), "data", None)
        nested = [getattr(r, "data", None)
                  for r in getattr(getattr(sym, "nested_references", None), "data", ())]
        if root != "kernels" or len(nested) != 1 or nested[0] not in self.kernels:
            raise self.fail(op, f"gpu.launch_func of {sym} is not modelled: the model launches "
                            "the gpu.func of its gpu.module @kernels")
        return self.kernels[str(nested[0])]

    def launch_args(self, op: Any, ref: prog.KernelRef, operands: list[Any]
                    ) -> tuple[tuple[str, ...], int | str | None]:
        """The buffer operands' names and the scalar operand, checked against the kernel."""
        want = kernel_params(ref)
        got = tuple(_memref_of(str(v.type)) or str(v.type) for v in operands)
        if got != want:
            raise self.fail(op, f"gpu.launch_func @kernels::@{ref.name} passes "
                            f"({', '.join(str(v.type) for v in operands)}); the kernel takes "
                            f"({', '.join(map(str, want))})")
        n = len(SHAPES[ref.shape].buffers)
        buffers = tuple(self.name(v, "m") for v in operands[:n])
        if len(operands) == n:
            return buffers, None
        value = operands[n]
        if value in self.scalars:
            return buffers, self.names[value]
        return buffers, self.integral(op, value, "the scalar operand of gpu.launch_func")

    def host_store(self, op: Any, oid: str) -> prog.Op:
        value = self.integral(op, op.operands[0], "the value memref.store stores")
        self.at_zero(op, op.operands[2:], "memref.store")
        memref, mtype = self.buffer(op, op.operands[1])
        return prog.HostStore(oid, memref, mtype, value)

    def host_load(self, op: Any, oid: str) -> prog.Op:
        self.at_zero(op, op.operands[1:], "memref.load")
        memref, mtype = self.buffer(op, op.operands[0])
        return prog.HostLoad(oid, self.name(op.results[0]), memref, mtype)

    def host_alloc(self, op: Any, oid: str) -> prog.Op:
        seg = self.segments(op) or [len(op.operands), 0]
        if len(seg) > 1 and seg[1] or attr_of(op, "alignment") is not None:
            raise self.fail(op, "memref.alloc with symbol operands or an alignment is not "
                            "modelled")
        mtype = _memref_type(op, str(op.results[0].type), self)
        dyn = tuple(self.index(op, v, "a dynamic size of memref.alloc")
                    for v in op.operands[:seg[0]])
        return prog.HostAlloc(oid, self.name(op.results[0], "h"), mtype, dyn)

    def host_dealloc(self, op: Any, oid: str) -> prog.Op:
        memref, mtype = self.buffer(op, op.operands[0])
        return prog.HostDealloc(oid, memref, mtype)

    def dim(self, op: Any, oid: str) -> prog.Op:
        memref, mtype = self.buffer(op, op.operands[0])
        k = self.consts.get(op.operands[1])
        if not isinstance(k, int) or not 0 <= k < len(mtype.shape):
            raise self.fail(op, "memref.dim of a dimension that is not a constant within "
                            "the buffer's rank is not modelled")
        self.index_values.add(op.results[0])
        return prog.Dim(oid, self.name(op.results[0], "d"), memref, mtype, k)

    def if_op(self, op: Any, oid: str) -> prog.Op:
        cond = op.operands[0]
        if cond not in self.names or not self.names[cond].startswith("%cond"):
            raise self.fail(op, "scf.if on a value other than an i1 function argument "
                            "is not modelled")
        if op.results:
            raise self.fail(op, "scf.if with results is not modelled")
        then = self.ops(op.regions[0].blocks[0])
        orelse = self.ops(op.regions[1].blocks[0]) if op.regions[1].blocks else ()
        return prog.If(oid, self.names[cond], then, orelse)

    def for_op(self, op: Any, oid: str) -> prog.Op:
        lb, ub, step = (self.consts.get(v) for v in op.operands[:3])
        if not isinstance(lb, int) or not isinstance(ub, int) or not isinstance(step, int) \
                or step <= 0 or len(op.operands) > 3:
            raise self.fail(op, "scf.for needs constant bounds and no iter_args")
        body = op.regions[0].blocks[0]
        iv = self.name(body.args[0], "i")
        self.index_values.add(body.args[0])
        return prog.For(oid, iv, max(0, -(-(ub - lb) // step)), self.ops(body))


_HANDLERS: dict[str, Callable[[_Reader, Any, str], prog.Op]] = {
    "gpu.wait": _Reader.wait, "gpu.alloc": _Reader.alloc, "gpu.dealloc": _Reader.device_op,
    "gpu.memset": _Reader.device_op, "gpu.memcpy": _Reader.device_op,
    "gpu.launch_func": _Reader.launch, "memref.store": _Reader.host_store,
    "memref.load": _Reader.host_load, "memref.alloc": _Reader.host_alloc,
    "memref.dealloc": _Reader.host_dealloc, "memref.dim": _Reader.dim, "scf.if": _Reader.if_op,
    "scf.for": _Reader.for_op,
}


def _memref_of(text: str) -> prog.MemRefType | None:
    """The model's type of a printed memref type (a memory space as
    `mlir-opt` or xDSL prints it); None for another type or one outside the model."""
    parsed = memref_text(text)
    if parsed is None or parsed.elem not in _ELEMENTS or len(parsed.rest) > 1:
        return None
    space = _SPACE.fullmatch(parsed.rest[0]) if parsed.rest else None
    if parsed.rest and space is None:
        return None
    return prog.MemRefType(parsed.dims, parsed.elem, int(space.group(1)) if space else None)


def _memref_type(op: Any, text: str, reader: _Reader) -> prog.MemRefType:
    mtype = _memref_of(text)
    if mtype is None:
        raise reader.fail(op, f"memref type {text} is not modelled (no layout supported; "
                          f"element types {', '.join(sorted(_ELEMENTS))})")
    return mtype


def _extra_attrs(op: Any, allowed: frozenset[str]) -> list[str]:
    """Attributes and properties of `op` outside `allowed` (xDSL's own
    `op_name__` of an unregistered op aside)."""
    names = {*(getattr(op, "properties", {}) or {}), *(getattr(op, "attributes", {}) or {})}
    return sorted(n for n in names if n not in allowed and n != "op_name__")


def _int(attr: Any) -> int | None:
    data = getattr(getattr(attr, "value", None), "data", None)
    return data if isinstance(data, int) else None
