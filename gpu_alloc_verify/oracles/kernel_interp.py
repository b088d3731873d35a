"""A generic interpreter of `gpu.func ... kernel` bodies, over the whole grid.

`load_kernel(text, symbol)` reads one `gpu.func` (custom form, as
`verify.model.kernels` prints it, or generic form, as `mlir-opt` prints a user's
file; a larger text holding it is fine) with xDSL (the gpu dialect left
unregistered, the "source" side of `verify.ir.parse.parse`: the custom-form gpu
ops are first rewritten to their generic spelling) and compiles the body
once into Python source: one function per launch that loops over blocks and
threads, with every value that depends only on the launch (constants,
`gpu.block_dim`, `memref.dim`, ...) computed once per launch and those that
depend only on the block once per block.  Ops where the block's threads meet
(`gpu.barrier`, `gpu.all_reduce`, `gpu.shuffle`, ...) make each thread a
generator (`kernel_collectives`); `gpu.subgroup_mma_*` and 1-D `vector` ops
are `kernel_mma` and `kernel_vector`.  What the interpreter does not model
(`memref.atomic_rmw`, `gpu.lane_id`, vectors of rank > 1, memref values made
inside the body, ...) raises `KernelUnsupported` naming it, at load time.

Semantics, chosen so that the simple kernels generated programs launch give
what a GPU gives:

- integers are Python ints modulo 2**width (unsigned; signed ops view them as
  two's complement; `index` is 64-bit, `i1` is 0/1); a shift by the width or
  more gives 0 (the sign for `shrsi`), as PTX clamps; `fptosi`/`fptoui`
  saturate and map NaN to 0, as PTX `cvt` does;
- floats are Python floats rounded to their type after every op (f32 and f16
  through `struct`, bf16 round-to-nearest-even from the double, f64 native),
  which for one IEEE op equals rounding the exact result once; a NaN loaded
  from memory keeps its bits through moves (`copy`), a NaN an op makes is the
  canonical NaN of PTX (0x7fffffff, 0x7fff, all-ones payload for f64);
- memory goes through `DeviceMemory.load/store` at `ptr + (offset +
  sum(i_k * stride_k)) * element_bytes` (modulo 2**64), little-endian; a
  refused load gives zero bytes and the thread goes on (the runtime has
  recorded the error); nothing is bounds-checked here, so an out-of-bounds
  access reaches the runtime;
- integer division by zero and loops past `STEP_LIMIT` iterations in one
  thread raise `KernelUnsupported` when the launch runs (undefined behaviour
  has no outcome to compare).

`catalogue_kernel(ref)` is the kernel of a `verify.model.kernels` catalogue entry,
with its CUDA C rendering (`oracles.kernel_cuda`) attached as `.cuda`;
`load_kernel` attaches it too whenever the text is a catalogue kernel's.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from xdsl.dialects import builtin
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gpu_alloc_verify.oracles import kernel_math, kernel_mma, kernel_vector
from gpu_alloc_verify.oracles.floats import (
    F16 as _F16,
)
from gpu_alloc_verify.oracles.floats import (
    F32 as _F32,
)
from gpu_alloc_verify.oracles.floats import (
    F64 as _F64,
)
from gpu_alloc_verify.oracles.floats import (
    FLOAT_BITS,
    ROUND,
    bits_float,
    float_bits,
    round_bf16,
    round_f16,
    round_f32,
)
from gpu_alloc_verify.oracles.floats import (
    INF as _INF,
)
from gpu_alloc_verify.oracles.floats import (
    StoredNaN as _NaN,
)
from gpu_alloc_verify.oracles.kernel_api import (
    ELEM_BYTES,
    DeviceMemory,
    Dim3,
    Kernel,
    KernelArg,
    KernelUnsupported,
    MemRefView,
    Param,
)
from gpu_alloc_verify.oracles.kernel_collectives import (
    CollectiveUB,
    combiner,
    reduction_kind,
    run_block,
)
from gpu_alloc_verify.oracles.llvm_values import prop, sdiv
from gpu_alloc_verify.verify.ir import fastparse, kernel_text
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.parse import NotParsed, parse
from gpu_alloc_verify.verify.model.program import KernelRef

STEP_LIMIT = 1_000_000  # loop iterations one thread may run
M64 = (1 << 64) - 1

def encode_element(value: int | float, elem: str) -> bytes:
    """The little-endian bytes of `value` as a memref element of type `elem`
    (a float is rounded to the type first, an int taken modulo the width)."""
    n = ELEM_BYTES[elem]
    if elem in FLOAT_BITS:
        x = float(value)
        return float_bits(ROUND[elem](x) if x == x else x, elem).to_bytes(n, "little")
    return (int(value) & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def decode_element(data: bytes, elem: str) -> int | float:
    if elem in FLOAT_BITS:
        return bits_float(int.from_bytes(data, "little"), elem)
    return int.from_bytes(data, "little")


def _fdiv(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _frem(a: float, b: float) -> float:
    if a != a or b != b or b == 0.0 or a in (_INF, -_INF):
        return math.nan
    return math.fmod(a, b)


def _fmaximum(a: float, b: float) -> float:
    if a != a or b != b:
        return math.nan
    if a == b == 0.0:
        return b if math.copysign(1.0, a) < 0 else a
    return a if a > b else b


def _fminimum(a: float, b: float) -> float:
    if a != a or b != b:
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


def _fmaxnum(a: float, b: float) -> float:
    if a != a:
        return b
    if b != b:
        return a
    return _fmaximum(a, b)


def _fminnum(a: float, b: float) -> float:
    if a != a:
        return b
    if b != b:
        return a
    return _fminimum(a, b)


def _int_to_float(n: int, ftype: str) -> float:
    """`n` rounded once to `ftype` (round to odd to 53 bits keeps 64-bit ints exact)."""
    if ftype == "f64" or -(1 << 53) <= n <= 1 << 53:
        return ROUND[ftype](float(n))
    a = abs(n)
    shift = a.bit_length() - 53
    m = a >> shift
    if a & ((1 << shift) - 1):
        m |= 1
    return ROUND[ftype](math.copysign(math.ldexp(float(m), shift), n))


def _float_to_int(x: float, lo: int, hi: int, mask: int) -> int:
    if x != x:
        return 0
    if x in (_INF, -_INF):
        return (hi if x > 0 else lo) & mask
    return min(max(math.trunc(x), lo), hi) & mask


def _bits_of(x: float, ftype: str) -> int:
    return float_bits(x, ftype)


# -- integers -----------------------------------------------------------------
def _srem(a: int, b: int, w: int) -> int:
    sa = a - (1 << w) if a >> (w - 1) else a
    sb = b - (1 << w) if b >> (w - 1) else b
    return sa - sdiv(a, b, w) * sb


def _signed(a: int, w: int) -> int:
    return a - (1 << w) if a >> (w - 1) else a


def _floordivsi(a: int, b: int, w: int) -> int:
    return _signed(a, w) // _signed(b, w)


def _ceildivsi(a: int, b: int, w: int) -> int:
    return -(-_signed(a, w) // _signed(b, w))


def _ceildivui(a: int, b: int) -> int:
    return -(-a // b)


def _predicate(op: Operation) -> int:
    """The predicate number of a compare (`arith.cmpi`, `arith.cmpf`)."""
    attr = prop(op, "predicate")
    assert isinstance(attr, builtin.IntegerAttr | fastparse.IntegerAttr), attr
    return int(attr.value.data)


class _UB(Exception):
    """Undefined behaviour met while running (the message says which)."""


def _range(lo: int, hi: int, step: int) -> range:
    if step <= 0:
        raise _UB(f"scf.for with step {step}")
    return range(lo, hi, step)


def _dim(sizes: tuple[int, ...], k: int) -> int:
    if k >= len(sizes):
        raise _UB(f"memref.dim {k} of a rank-{len(sizes)} memref")
    return sizes[k]


def _too_long() -> None:
    raise _UB(f"a thread ran more than {STEP_LIMIT} loop iterations")


def _assert_failed(msg: str) -> None:
    # A failed device assertion traps the kernel: the launch fails, no
    # outcome to compare.
    raise _UB(f"a failed cf.assert ({msg!r}) traps the kernel")


_HELPERS: dict[str, Any] = {
    "_r_f16": round_f16, "_r_bf16": round_bf16, "_r_f32": round_f32,
    "_fdiv": _fdiv, "_frem": _frem, "_fmaximum": _fmaximum, "_fminimum": _fminimum,
    "_fmaxnum": _fmaxnum, "_fminnum": _fminnum, "_i2f": _int_to_float, "_f2i": _float_to_int,
    "_bits_of": _bits_of, "_bits_float": bits_float, "_float_bits": float_bits,
    "_sdiv": sdiv, "_srem": _srem, "_floordivsi": _floordivsi, "_ceildivsi": _ceildivsi,
    "_ceildivui": _ceildivui, "_range": _range, "_dim": _dim, "_too_long": _too_long,
    "_assert_failed": _assert_failed, "_run_block": run_block, "_mma": kernel_mma,
    "_INF": _INF, "_NAN": math.nan, "_fb": int.from_bytes, "_NaN": _NaN,
    "_uf32": _F32.unpack, "_pf32": _F32.pack, "_uf16": _F16.unpack, "_pf16": _F16.pack,
    "_uf64": _F64.unpack, "_pf64": _F64.pack, "_math": math,
    "_mu": kernel_math.UNARY, "_mb": kernel_math.BINARY, "_mi": kernel_math.INTEGER,
    "_fma": kernel_math.fma,
}


# -- reading the text ---------------------------------------------------------
def _parse(text: str, func: str) -> Operation:
    try:
        source = kernel_text.generic_gpu_func(text, func) \
            if kernel_text.has_custom_gpu_func(text) else text
    except kernel_text.KernelTextUnsupported as e:
        raise KernelUnsupported(str(e)) from None
    try:
        module = parse(source, side="source", reader="xdsl", opaque=False)
    except NotParsed as e:
        lines = e.lines
        named = kernel_text.op_named_in(lines[1]) if len(lines) > 1 else None
        if named is not None and "custom format" in lines[-1]:
            raise KernelUnsupported(f"kernel @{func} uses {named} (xDSL cannot read "
                                    "its custom form; give the kernel in generic form)") \
                from e.error
        raise KernelUnsupported(f"kernel @{func}: xDSL cannot read it: "
                                f"{lines[-1] if lines else type(e.error).__name__}") from e.error
    for op in module.walk():
        if _name(op) == "gpu.func" and _sym(op) == func:
            return op
    raise ValueError(f"no gpu.func @{func} in the kernel text")


def _name(op: Operation) -> str:
    return op_name(op)


def _sym(op: Operation) -> str | None:
    attr = prop(op, "sym_name")
    return None if attr is None else str(getattr(attr, "data", attr))


# -- types --------------------------------------------------------------------
class _Val:
    """What the compiler knows of an SSA value."""

    __slots__ = ("expr", "kind", "width", "ftype", "param", "level", "const")

    def __init__(self, expr: str, kind: str, level: int, *, width: int = 0, ftype: str = "",
                 param: int = -1, const: int | float | None = None) -> None:
        self.expr = expr
        self.kind = kind  # "int", "float", "memref"
        self.level = level  # 0 launch, 1 block, 2 thread
        self.width = width
        self.ftype = ftype
        self.param = param
        self.const = const


def _type_info(t: Attribute, where: str) -> tuple[str, int, str]:
    """(kind, width, float type) of a scalar type (of a vector's lanes)."""
    if isinstance(t, builtin.VectorType):
        t = t.element_type
    if isinstance(t, builtin.IndexType):
        return "int", 64, ""
    if isinstance(t, builtin.IntegerType):
        return "int", t.width.data, ""
    for cls, name in ((builtin.Float16Type, "f16"), (builtin.BFloat16Type, "bf16"),
                      (builtin.Float32Type, "f32"), (builtin.Float64Type, "f64")):
        if isinstance(t, cls):
            return "float", FLOAT_BITS[name], name
    raise KernelUnsupported(f"{where} has type {t} (not modelled)")


def _type_text(t: Attribute) -> str:
    return kernel_text.memref_type_text(str(t))


def _elem_name(t: Attribute, where: str) -> str:
    name = str(t)
    if name not in ELEM_BYTES:
        raise KernelUnsupported(f"{where}: memref element type {name} (not modelled)")
    return name


# -- the compiler -------------------------------------------------------------
_INT_BIN = {"arith.addi": "({a} + {b}) & {M}", "arith.subi": "({a} - {b}) & {M}",
            "arith.muli": "({a} * {b}) & {M}", "arith.andi": "{a} & {b}",
            "arith.ori": "{a} | {b}", "arith.xori": "{a} ^ {b}",
            "arith.maxui": "max({a}, {b})", "arith.minui": "min({a}, {b})",
            "arith.maxsi": "({a} if ({a} ^ {S}) >= ({b} ^ {S}) else {b})",
            "arith.minsi": "({a} if ({a} ^ {S}) <= ({b} ^ {S}) else {b})",
            "arith.shli": "(({a} << {b}) & {M} if {b} < {w} else 0)",
            "arith.shrui": "({a} >> {b} if {b} < {w} else 0)",
            "arith.shrsi": "((({a} ^ {S}) - {S}) >> ({b} if {b} < {w} else {w1})) & {M}"}
_INT_DIV = {"arith.divui": "{a} // {b}", "arith.remui": "{a} % {b}",
            "arith.divsi": "_sdiv({a}, {b}, {w}) & {M}",
            "arith.remsi": "_srem({a}, {b}, {w}) & {M}",
            "arith.floordivsi": "_floordivsi({a}, {b}, {w}) & {M}",
            "arith.ceildivsi": "_ceildivsi({a}, {b}, {w}) & {M}",
            "arith.ceildivui": "_ceildivui({a}, {b})"}
_FLOAT_BIN = {"arith.addf": "{a} + {b}", "arith.subf": "{a} - {b}", "arith.mulf": "{a} * {b}",
              "arith.divf": "_fdiv({a}, {b})", "arith.remf": "_frem({a}, {b})",
              "arith.maximumf": "_fmaximum({a}, {b})", "arith.minimumf": "_fminimum({a}, {b})",
              "arith.maxnumf": "_fmaxnum({a}, {b})", "arith.minnumf": "_fminnum({a}, {b})"}
_CMPI = {0: "{a} == {b}", 1: "{a} != {b}", 2: "({a} ^ {S}) < ({b} ^ {S})",
         3: "({a} ^ {S}) <= ({b} ^ {S})", 4: "({a} ^ {S}) > ({b} ^ {S})",
         5: "({a} ^ {S}) >= ({b} ^ {S})", 6: "{a} < {b}", 7: "{a} <= {b}", 8: "{a} > {b}",
         9: "{a} >= {b}"}
_CMPF = {0: "False", 1: "{a} == {b}", 2: "{a} > {b}", 3: "{a} >= {b}", 4: "{a} < {b}",
         5: "{a} <= {b}", 6: "({a} < {b} or {a} > {b})", 7: "({a} == {a} and {b} == {b})",
         8: "not ({a} < {b} or {a} > {b})", 9: "not ({a} <= {b})", 10: "not ({a} < {b})",
         11: "not ({a} >= {b})", 12: "not ({a} > {b})", 13: "{a} != {b}",
         14: "({a} != {a} or {b} != {b})", 15: "True"}
_IDS = {"gpu.thread_id": ("tx", "ty", "tz"), "gpu.block_id": ("bx", "by", "bz"),
        "gpu.block_dim": ("bdx", "bdy", "bdz"), "gpu.grid_dim": ("gdx", "gdy", "gdz"),
        "gpu.global_id": ("(bx * bdx + tx)", "(by * bdy + ty)", "(bz * bdz + tz)")}
_ID_LEVEL = {"gpu.thread_id": 2, "gpu.block_id": 1, "gpu.block_dim": 0, "gpu.grid_dim": 0,
             "gpu.global_id": 2}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
          "arith.extf", "arith.truncf", "arith.bitcast")


class _LaneOp:
    """An op seen lane by lane: `_Compiler.op` must not take it for a
    vector op again (its value types stay the vector's; `_type_info`
    reads their element type)."""

    def __init__(self, op: Operation) -> None:
        self._op = op

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._op, attr)


class _Compiler:
    def __init__(self, name: str, func: Operation) -> None:
        self.name = name
        self.func = func
        self.vals: dict[SSAValue, _Val] = {}
        self.launch: list[str] = []
        self.block: list[str] = []
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.n = 0
        self.loops = False
        self.collective = False  # a thread yields at collective ops (`kernel_collectives`)
        self.vecs: dict[SSAValue, list[_Val]] = {}  # a 1-D vector's lanes (`kernel_vector`)
        self.params: list[Param] = []

    def fresh(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def unsupported(self, what: str) -> KernelUnsupported:
        return KernelUnsupported(f"kernel @{self.name} uses {what}")

    # -- values -------------------------------------------------------------
    def val(self, v: SSAValue) -> _Val:
        found = self.vals.get(v)
        if found is None:
            raise self.unsupported(f"a value defined outside the kernel ({v.type})")
        return found

    def define(self, v: SSAValue, expr: str, level: int, const: int | float | None = None) -> _Val:
        kind, width, ftype = _type_info(v.type, f"a value of {self.where(v)}")
        out = _Val(expr, kind, level, width=width, ftype=ftype, const=const)
        self.vals[v] = out
        return out

    def where(self, v: SSAValue) -> str:
        owner = v.owner
        return _name(owner) if isinstance(owner, Operation) else "a block argument"

    def literal(self, value: int | float) -> str:
        if isinstance(value, float):
            if value != value or value in (_INF, -_INF):
                key = f"_K{len(self.ns)}"
                self.ns[key] = value
                return key
            return f"({value!r})"
        return str(value)

    # -- entry ----------------------------------------------------------------
    def compile(self) -> Callable[..., None]:
        fn = self.func
        ftype = prop(fn, "function_type")
        inputs = list(getattr(getattr(ftype, "inputs", None), "data", ()))
        region = fn.regions[0] if fn.regions else None
        if region is None or not region.blocks:
            raise KernelUnsupported(f"kernel @{self.name} has no body")
        entry = region.blocks[0]
        if len(entry.args) != len(inputs):
            raise KernelUnsupported(f"kernel @{self.name} has workgroup or private memory "
                                    "attributions (not modelled)")
        for p, arg in enumerate(entry.args):
            self.param(p, arg)
        thread: list[str] = []
        blocks = list(region.blocks)
        if len(blocks) == 1:
            self.ops(entry, thread, 1, hoist=True)
            self.func_terminator(entry, thread, 1, {})
        else:
            index = {b: k for k, b in enumerate(blocks)}
            for b in blocks[1:]:
                for a in b.args:
                    self.define(a, self.fresh(), 2)
            self.ops(entry, thread, 1, hoist=True)
            self.func_terminator(entry, thread, 1, index)
            thread.append("    while True:")
            thread.append("        _n += 1")
            thread.append("        if _n > STEP_LIMIT: _too_long()")
            for k, b in enumerate(blocks[1:], start=1):
                thread.append(f"        {'if' if k == 1 else 'elif'} _b == {k}:")
                self.ops(b, thread, 3, hoist=False)
                self.func_terminator(b, thread, 3, index)
            self.loops = True
        return self.assemble(thread)

    def param(self, p: int, arg: SSAValue) -> None:
        t = arg.type
        if isinstance(t, builtin.MemRefType):
            elem = _elem_name(t.element_type, f"kernel @{self.name} parameter {p}")
            rank = len(t.get_shape())
            self.params.append(Param("memref", _type_text(t), elem, rank))
            eb = ELEM_BYTES[elem]
            self.launch.append(f"_a = args[{p}]")
            self.launch.append(f"B{p} = (_a.ptr + _a.offset * {eb}) & {M64}")
            self.launch.append(f"D{p} = tuple(_a.sizes)")
            for k in range(rank):
                self.launch.append(f"S{p}_{k} = _a.strides[{k}] * {eb}")
                self.launch.append(f"D{p}_{k} = D{p}[{k}]")
            self.vals[arg] = _Val(f"m{p}", "memref", 0, param=p, width=rank, ftype=elem)
            return
        kind, width, ftype = _type_info(t, f"kernel @{self.name} parameter {p}")
        text = _type_text(t)
        self.params.append(Param("scalar", text, text))
        if kind == "int":
            self.launch.append(f"p{p} = int(args[{p}]) & {(1 << width) - 1}")
        elif ftype == "f64":
            self.launch.append(f"p{p} = float(args[{p}])")
        else:
            self.launch.append(f"p{p} = _r_{ftype}(float(args[{p}]))")
        self.vals[arg] = _Val(f"p{p}", kind, 0, width=width, ftype=ftype)

    def assemble(self, thread: list[str]) -> Callable[..., None]:
        lines = ["def _launch(grid, block, args, memory):",
                 "    gdx, gdy, gdz = grid",
                 "    bdx, bdy, bdz = block",
                 "    if gdx <= 0 or gdy <= 0 or gdz <= 0 or bdx <= 0 or bdy <= 0 or bdz <= 0:",
                 "        return",
                 "    load = memory.load",
                 "    store = memory.store"]
        lines += ["    " + ln for ln in self.launch]
        lines += ["    for bz in range(gdz):",
                  "     for by in range(gdy):",
                  "      for bx in range(gdx):"]
        lines += ["        " + ln for ln in self.block]
        lines.append("        def _thread(tx, ty, tz):")
        if self.loops:
            lines.append("            _n = 0")
        lines += ["        " + ln for ln in thread]
        lines.append("            pass")
        if self.collective:  # each thread a generator, meeting the others at collectives
            lines.append("            yield from ()")
            lines += ["        _run_block([_thread(tx, ty, tz) for tz in range(bdz)",
                      "                    for ty in range(bdy) for tx in range(bdx)])"]
        else:
            lines += ["        for tz in range(bdz):",
                      "         for ty in range(bdy):",
                      "          for tx in range(bdx):",
                      "            _thread(tx, ty, tz)"]
        source = "\n".join(lines) + "\n"
        self.ns["STEP_LIMIT"] = STEP_LIMIT
        exec(compile(source, f"<kernel @{self.name}>", "exec"), self.ns)
        launch: Callable[..., None] = self.ns["_launch"]
        launch.source = source  # type: ignore[attr-defined]
        return launch

    # -- blocks ---------------------------------------------------------------
    def ops(self, block: Block, out: list[str], ind: int, hoist: bool) -> None:
        ops = list(block.ops)
        for op in ops[:-1] if ops else []:
            self.op(op, out, ind, hoist)

    def func_terminator(self, block: Block, out: list[str], ind: int,
                        index: dict[Block, int]) -> None:
        term = block.last_op
        pad = "    " * ind
        name = _name(term) if term is not None else "nothing"
        if name == "gpu.return":
            if term is not None and term.operands:
                raise self.unsupported("gpu.return with operands")
            out.append(pad + "return")
        elif name == "cf.br" and term is not None:
            self.branch(term.successors[0], list(term.operands), out, pad, index)
        elif name == "cf.cond_br" and term is not None:
            cond = self.val(term.operands[0]).expr
            then_args = list(getattr(term, "then_arguments", ()))
            else_args = list(getattr(term, "else_arguments", ()))
            out.append(f"{pad}if {cond}:")
            self.branch(term.successors[0], then_args, out, pad + "    ", index)
            out.append(f"{pad}else:")
            self.branch(term.successors[1], else_args, out, pad + "    ", index)
        else:
            raise self.unsupported(name)

    def branch(self, target: Block, operands: Sequence[SSAValue], out: list[str], pad: str,
               index: dict[Block, int]) -> None:
        self.assign([self.val(a).expr for a in target.args],
                    [self.val(o).expr for o in operands], out, pad)
        out.append(f"{pad}_b = {index[target]}")

    @staticmethod
    def assign(targets: list[str], values: list[str], out: list[str], pad: str) -> None:
        if targets:
            out.append(f"{pad}{', '.join(targets)}, = {', '.join(values)},")

    def region_body(self, block: Block, out: list[str], ind: int) -> Operation | None:
        """The ops of an scf region's block; its terminator returned, not emitted."""
        self.ops(block, out, ind, hoist=False)
        out.append("    " * ind + "pass")
        return block.last_op

    # -- ops ------------------------------------------------------------------
    def op(self, op: Operation, out: list[str], ind: int, hoist: bool) -> None:
        name = _name(op)
        for r in op.results:
            if isinstance(r.type, builtin.MemRefType):
                raise self.unsupported(f"{name} (it makes a memref)")
        if name not in kernel_vector.HANDLERS and not isinstance(op, _LaneOp) and any(
                kernel_vector.lanes_of(v.type) is not None for v in (*op.results, *op.operands)):
            self.elementwise(op, name, out, ind, hoist)
            return
        handler = _HANDLERS.get(name)
        if handler is None:
            if name in _INT_BIN or name in _INT_DIV or name in _FLOAT_BIN:
                handler = _Compiler.binary
            elif name in _CASTS:
                handler = _Compiler.cast
            elif name in _MATH:
                handler = _Compiler.h_math
            else:
                raise self.unsupported(name)
        handler(self, op, name, out, ind, hoist)

    def emit(self, op: Operation, expr: str, level: int, out: list[str], ind: int,
             hoist: bool, result: int = 0) -> None:
        """Assign `expr` to a fresh name at `level` (thread level unless hoisted)."""
        level = level if hoist else 2
        target = (self.launch, self.block)[level] if level < 2 else out
        pad = "" if level < 2 else "    " * ind
        name = self.fresh()
        target.append(f"{pad}{name} = {expr}")
        self.define(op.results[result], name, level)

    def level(self, *vals: _Val) -> int:
        return max((v.level for v in vals), default=0)

    def h_constant(self, op: Operation, name: str, out: list[str], ind: int,
                   hoist: bool) -> None:
        attr = prop(op, "value")
        r = op.results[0]
        kind, width, ftype = _type_info(r.type, "arith.constant")
        if isinstance(attr, builtin.IntegerAttr) and kind == "int":
            value: int | float = int(attr.value.data) & ((1 << width) - 1)
        elif isinstance(attr, builtin.FloatAttr) and kind == "float":
            value = ROUND[ftype](float(attr.value.data))
        else:
            raise self.unsupported(f"arith.constant {attr}")
        self.vals[r] = _Val(self.literal(value), kind, 0, width=width, ftype=ftype, const=value)

    def h_id(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        attr = prop(op, "dimension")
        dim = kernel_text.dimension(str(attr))
        if dim is None:
            raise self.unsupported(f"{name} without a dimension")
        expr = _IDS[name]["xyz".index(dim)]
        level = _ID_LEVEL[name] if hoist else 2
        if level == 2 and name == "gpu.global_id":
            self.emit(op, expr, 2, out, ind, hoist)
        else:
            self.define(op.results[0], expr, level)

    def binary(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        a, b = (self.val(o) for o in op.operands)
        w = a.width
        fmt = dict(a=a.expr, b=b.expr, M=(1 << w) - 1, S=1 << (w - 1) if w else 0, w=w,
                   w1=w - 1)
        if name in _FLOAT_BIN:
            expr = _FLOAT_BIN[name].format(**fmt)
            if a.ftype != "f64":
                expr = f"_r_{a.ftype}({expr})"
            self.emit(op, expr, self.level(a, b), out, ind, hoist)
        elif name in _INT_DIV:  # may raise: never hoisted
            self.emit(op, _INT_DIV[name].format(**fmt), 2, out, ind, hoist)
        else:
            self.emit(op, _INT_BIN[name].format(**fmt), self.level(a, b), out, ind, hoist)

    def h_negf(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        a = self.val(op.operands[0])
        self.emit(op, f"-{a.expr}", a.level, out, ind, hoist)

    def h_math(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        """A `kernel_math` op: pure, so hoisted with its operands."""
        args = [self.val(o) for o in op.operands]
        a = args[0]
        if name in kernel_math.INTEGER:
            if a.kind != "int" or a.width == 0:
                raise self.unsupported(f"{name} on {op.operands[0].type}")
            self.emit(op, f"_mi[{name!r}]({a.expr}, {a.width})", a.level, out, ind, hoist)
            return
        if any(x.kind != "float" for x in args):
            raise self.unsupported(f"{name} on {op.operands[0].type}")
        exprs = [x.expr for x in args]
        if name == "math.sincos":
            calls = [f"_mu['math.sin']({a.expr})", f"_mu['math.cos']({a.expr})"]
        elif name == "math.fma":
            calls = [f"_fma({', '.join(exprs)}, {a.ftype!r})"]
        elif name in kernel_math.BINARY:
            calls = [f"_mb[{name!r}]({exprs[0]}, {exprs[1]})"]
        else:
            calls = [f"_mu[{name!r}]({a.expr})"]
        for k, call in enumerate(calls):
            expr = call if a.ftype == "f64" else f"_r_{a.ftype}({call})"
            self.emit(op, expr, self.level(*args), out, ind, hoist, result=k)

    def h_printf(self, op: Operation, name: str, out: list[str], ind: int,
                 hoist: bool) -> None:
        """No effect on any buffer: the text goes to the device's stdout,
        which neither side of `differential` observes."""

    # -- collectives (`kernel_collectives`) ---------------------------------------
    def _request(self, op: Operation, request: str, out: list[str], ind: int,
                 results: int = 1) -> None:
        """`results` fresh names (0: none) = what the block sends back for `request`."""
        self.collective = True
        pad = "    " * ind
        names = [self.fresh() for _ in range(results)]
        target = f"{', '.join(names)}{',' if results > 1 else ''} = " if names else ""
        out.append(f"{pad}{target}(yield {request})")
        for k, n in enumerate(names):
            self.define(op.results[k], n, 2)

    def h_barrier(self, op: Operation, name: str, out: list[str], ind: int,
                  hoist: bool) -> None:
        self._request(op, f"('barrier', {id(op)})", out, ind, 0)

    def h_reduce(self, op: Operation, name: str, out: list[str], ind: int,
                 hoist: bool) -> None:
        """gpu.all_reduce / gpu.subgroup_reduce: by its operation attribute,
        or (all_reduce) by its region, compiled as a function of two values."""
        if prop(op, "cluster_size") is not None:
            raise self.unsupported(f"{name} over clusters")
        a = self.val(op.operands[0])
        region = next((r for r in op.regions if r.blocks and list(r.blocks[0].ops)), None)
        if region is not None:
            key = self._combiner_region(region.blocks[0], name, out, ind)
        else:
            try:
                combine = combiner(reduction_kind(prop(op, "op")), a.width, a.ftype)
            except ValueError as e:
                raise self.unsupported(f"{name}: {e}") from None
            key = f"_c{len(self.ns)}"
            self.ns[key] = combine
        tag = "all_reduce" if name == "gpu.all_reduce" else "subgroup_reduce"
        self._request(op, f"({tag!r}, {id(op)}, {key}, {a.expr})", out, ind)

    def _combiner_region(self, block: Block, name: str, out: list[str], ind: int) -> str:
        """A reduction region as a nested function (lhs, rhs) -> its yield."""
        term = block.last_op
        if len(block.args) != 2 or term is None or _name(term) != "gpu.yield" \
                or len(term.operands) != 1:
            raise self.unsupported(f"{name} with a region that is no binary reduction")
        fname = self.fresh("_comb")
        for k, arg in enumerate(block.args):
            self.define(arg, f"{fname}_{k}", 2)
        pad = "    " * ind
        out.append(f"{pad}def {fname}({fname}_0, {fname}_1):")
        self.ops(block, out, ind + 1, hoist=False)
        out.append(f"{pad}    return {self.val(term.operands[0]).expr}")
        return fname

    def h_shuffle(self, op: Operation, name: str, out: list[str], ind: int,
                  hoist: bool) -> None:
        value, offset, width = (self.val(o) for o in op.operands)
        mode = reduction_kind(prop(op, "mode"))
        if mode not in ("xor", "up", "down", "idx"):
            raise self.unsupported(f"gpu.shuffle {mode}")
        self._request(op, f"('shuffle', {id(op)}, {mode!r}, {value.expr}, {offset.expr}, "
                      f"{width.expr})", out, ind, 2)

    # -- subgroup MMA (`kernel_mma`) -----------------------------------------------
    def _mma(self, v: SSAValue, what: str) -> tuple[int, int, str]:
        dims = kernel_mma.matrix_type(str(v.type))
        if dims is None:
            raise self.unsupported(f"{what} of {v.type}")
        return dims

    def _lead(self, op: Operation, name: str) -> int:
        if prop(op, "transpose") is not None:
            raise self.unsupported(f"{name} transposed")
        ld = getattr(getattr(prop(op, "leadDimension"), "value", None), "data", None)
        if not isinstance(ld, int):
            raise self.unsupported(f"{name} without a leadDimension")
        return ld

    def h_mma_load(self, op: Operation, name: str, out: list[str], ind: int,
                   hoist: bool) -> None:
        rows, cols, elem = self._mma(op.results[0], name)
        m = self.memref(op, op.operands[0])
        if m.ftype != elem:
            raise self.unsupported(f"{name} of {elem} from {m.ftype} memory")
        v = self.fresh()
        out.append(f"{'    ' * ind}{v} = _mma.load(load, {self.address(m, op.operands[1:])}, "
                   f"{rows}, {cols}, {self._lead(op, name)}, {elem!r})")
        self.vals[op.results[0]] = _Val(v, "mma", 2, ftype=elem)

    def h_mma_store(self, op: Operation, name: str, out: list[str], ind: int,
                    hoist: bool) -> None:
        rows, cols, elem = self._mma(op.operands[0], name)
        m = self.memref(op, op.operands[1])
        if m.ftype != elem:
            raise self.unsupported(f"{name} of {elem} to {m.ftype} memory")
        out.append(f"{'    ' * ind}_mma.store(store, {self.val(op.operands[0]).expr}, "
                   f"{self.address(m, op.operands[2:])}, {rows}, {cols}, "
                   f"{self._lead(op, name)}, {elem!r})")

    def h_mma_compute(self, op: Operation, name: str, out: list[str], ind: int,
                      hoist: bool) -> None:
        if prop(op, "a_transpose") is not None or prop(op, "b_transpose") is not None:
            raise self.unsupported(f"{name} transposed")
        m, k, _ = self._mma(op.operands[0], name)
        _, n, _ = self._mma(op.operands[1], name)
        _, _, elem = self._mma(op.results[0], name)
        a, b, c = (self.val(x).expr for x in op.operands)
        v = self.fresh()
        out.append(f"{'    ' * ind}{v} = _mma.compute({a}, {b}, {c}, {m}, {n}, {k}, {elem!r})")
        self.vals[op.results[0]] = _Val(v, "mma", 2, ftype=elem)

    def h_mma_constant(self, op: Operation, name: str, out: list[str], ind: int,
                       hoist: bool) -> None:
        rows, cols, elem = self._mma(op.results[0], name)
        v = self.fresh()
        out.append(f"{'    ' * ind}{v} = _mma.constant({self.val(op.operands[0]).expr}, "
                   f"{rows}, {cols})")
        self.vals[op.results[0]] = _Val(v, "mma", 2, ftype=elem)

    def h_assert(self, op: Operation, name: str, out: list[str], ind: int,
                 hoist: bool) -> None:
        """Nothing while the condition holds; a failed one traps the kernel."""
        cond = self.val(op.operands[0])
        msg = getattr(prop(op, "msg"), "data", "")
        out.append(f"{'    ' * ind}if not {cond.expr}: _assert_failed({str(msg)!r})")

    def h_cmpi(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        a, b = (self.val(o) for o in op.operands)
        expr = _CMPI[_predicate(op)].format(a=a.expr, b=b.expr, S=1 << (a.width - 1))
        self.emit(op, expr, self.level(a, b), out, ind, hoist)

    def h_cmpf(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        a, b = (self.val(o) for o in op.operands)
        self.emit(op, _CMPF[_predicate(op)].format(a=a.expr, b=b.expr), self.level(a, b), out,
                  ind, hoist)

    def h_select(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        c, a, b = (self.val(o) for o in op.operands)
        self.emit(op, f"({a.expr} if {c.expr} else {b.expr})", self.level(c, a, b), out, ind,
                  hoist)

    def cast(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        a = self.val(op.operands[0])
        kind, width, ftype = _type_info(op.results[0].type, name)
        m = (1 << width) - 1
        x = a.expr
        if name in ("arith.index_cast", "arith.extsi") or (
                name == "arith.trunci" and width <= a.width):
            if width > a.width:  # sign-extend
                s = 1 << (a.width - 1)
                expr = f"(({x} ^ {s}) - {s}) & {m}"
            else:
                expr = f"{x} & {m}"
        elif name in ("arith.index_castui", "arith.extui"):
            expr = f"{x} & {m}"
        elif name == "arith.sitofp":
            s = 1 << (a.width - 1)
            expr = f"_i2f(({x} ^ {s}) - {s}, {ftype!r})"
        elif name == "arith.uitofp":
            expr = f"_i2f({x}, {ftype!r})"
        elif name == "arith.fptosi":
            expr = f"_f2i({x}, {-(1 << (width - 1))}, {(1 << (width - 1)) - 1}, {m})"
        elif name == "arith.fptoui":
            expr = f"_f2i({x}, 0, {m}, {m})"
        elif name == "arith.extf":
            expr = x
        elif name == "arith.truncf":
            expr = x if ftype == "f64" else f"_r_{ftype}({x})"
        elif name == "arith.bitcast":
            if kind == "int" and a.kind == "float":
                expr = f"_bits_of({x}, {a.ftype!r})"
            elif kind == "float" and a.kind == "int":
                expr = f"_bits_float({x}, {ftype!r})"
            else:
                expr = x
        else:
            raise self.unsupported(name)
        self.emit(op, expr, a.level, out, ind, hoist)

    def memref(self, op: Operation, v: SSAValue) -> _Val:
        m = self.val(v)
        if m.kind != "memref":
            raise self.unsupported(f"{_name(op)} of a non-memref")
        return m

    def address(self, m: _Val, indices: Sequence[SSAValue]) -> str:
        p = m.param
        terms = [f"B{p}"]
        for k, i in enumerate(indices):
            iv = self.val(i)
            if iv.const == 0:
                continue
            terms.append(f"{iv.expr} * S{p}_{k}")
        return terms[0] if len(terms) == 1 else f"({' + '.join(terms)}) & {M64}"

    # -- vectors (`kernel_vector`) ---------------------------------------------------
    def lanes(self, v: SSAValue, what: str) -> list[_Val]:
        found = self.vecs.get(v)
        if found is None:
            raise self.unsupported(f"{what} of a vector made outside the ops modelled")
        return found

    def scalar(self, expr: str, elem: str) -> _Val:
        """A thread-level value of memref element type `elem`."""
        if elem in FLOAT_BITS:
            return _Val(expr, "float", 2, width=FLOAT_BITS[elem], ftype=elem)
        return _Val(expr, "int", 2, width=64 if elem == "index" else int(elem[1:]))

    def elementwise(self, op: Operation, name: str, out: list[str], ind: int,
                    hoist: bool) -> None:
        """A scalar op on 1-D vectors: compiled once per lane."""
        typed = [v for v in (*op.results, *op.operands)
                 if kernel_vector.lanes_of(v.type) is not None]
        n = min(kernel_vector.lanes_of(v.type) or 0 for v in typed)
        if n < 1:  # a vector of rank 0 or above 1
            raise self.unsupported(f"{name} on {typed[0].type}")
        if name == "arith.constant":
            value = prop(op, "value")
            splat = re.fullmatch(r"dense<([^<>\[\],]+)>.*", str(value))
            if splat is None:
                raise self.unsupported(f"arith.constant {value} (not a splat)")
            text = splat.group(1).strip()
            kind, _, ftype = _type_info(op.results[0].type, name)
            lit: int | float = float(text) if kind == "float" else int(text, 0)
            lane = _Val(self.literal(ROUND[ftype](lit) if ftype else lit), kind, 0, const=lit,
                        width=_type_info(op.results[0].type, name)[1], ftype=ftype)
            self.vecs[op.results[0]] = [lane] * n
            return
        scalar = name in _INT_BIN or name in _INT_DIV or name in _FLOAT_BIN \
            or name in _CASTS or name in _MATH \
            or name in ("arith.cmpi", "arith.cmpf", "arith.select", "arith.negf")
        if not scalar or len(op.results) != 1:
            raise self.unsupported(f"{name} on vectors")
        vector_operands = [o for o in op.operands if kernel_vector.lanes_of(o.type) is not None]
        lanes: list[_Val] = []
        for k in range(n):
            for o in vector_operands:
                self.vals[o] = self.lanes(o, name)[k]
            self.op(_LaneOp(op), out, ind, hoist)  # type: ignore[arg-type] # an Operation by delegation
            lanes.append(self.vals.pop(op.results[0]))
        for o in vector_operands:
            self.vals.pop(o, None)
        self.vecs[op.results[0]] = lanes

    def load_at(self, m: _Val, addr: str, out: list[str], ind: int) -> _Val:
        """Emit a load of one element of memref `m` at byte address `addr`."""
        elem = m.ftype
        n = ELEM_BYTES[elem]
        pad = "    " * ind
        t = self.fresh("t")
        v = self.fresh()
        out.append(f"{pad}{t} = load({addr}, {n})")
        if elem in ("f32", "f16", "f64"):
            out.append(f"{pad}{v} = _uf{elem[1:]}({t})[0] if {t} is not None else 0.0")
            out.append(f"{pad}if {v} != {v}: {v} = _NaN(_fb({t}, 'little'), {elem!r})")
        elif elem == "bf16":
            out.append(f"{pad}{v} = _bits_float(_fb({t}, 'little'), 'bf16') "
                       f"if {t} is not None else 0.0")
        elif elem == "i1":
            out.append(f"{pad}{v} = {t}[0] & 1 if {t} is not None else 0")
        else:
            out.append(f"{pad}{v} = _fb({t}, 'little') if {t} is not None else 0")
        return self.scalar(v, elem)

    def store_line(self, m: _Val, addr: str, value: _Val) -> str:
        """The statement storing `value` as memref `m`'s element at `addr`."""
        elem = m.ftype
        n = ELEM_BYTES[elem]
        x = value.expr
        if elem in ("f32", "f16", "f64"):
            data = (f"_pf{elem[1:]}({x}) if {x} == {x} else "
                    f"_float_bits({x}, {elem!r}).to_bytes({n}, 'little')")
        elif elem == "bf16":
            data = f"_float_bits({x}, 'bf16').to_bytes(2, 'little')"
        else:
            data = f"({x} & {(1 << (8 * n)) - 1}).to_bytes({n}, 'little')"
        return f"store({addr}, {data})"

    def h_load(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        m = self.memref(op, op.operands[0])
        v = self.load_at(m, self.address(m, op.operands[1:]), out, ind)
        self.define(op.results[0], v.expr, 2)

    def h_store(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        value = self.val(op.operands[0])
        m = self.memref(op, op.operands[1])
        out.append(f"{'    ' * ind}{self.store_line(m, self.address(m, op.operands[2:]), value)}")

    def h_dim(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        m = self.memref(op, op.operands[0])
        k = self.val(op.operands[1])
        p = m.param
        if isinstance(k.const, int) and k.const < m.width:
            self.define(op.results[0], f"D{p}_{k.const}", 0 if hoist else 2)
        else:
            self.emit(op, f"_dim(D{p}, {k.expr})", 2, out, ind, hoist)

    def h_if(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        cond = self.val(op.operands[0])
        pad = "    " * ind
        results = [self.define(r, self.fresh(), 2).expr for r in op.results]
        out.append(f"{pad}if {cond.expr}:")
        self.yield_into(op.regions[0].blocks[0], results, out, ind + 1)
        if len(op.regions) > 1 and op.regions[1].blocks:
            out.append(f"{pad}else:")
            self.yield_into(op.regions[1].blocks[0], results, out, ind + 1)

    def yield_into(self, block: Block, targets: list[str], out: list[str], ind: int) -> None:
        term = self.region_body(block, out, ind)
        if term is None or _name(term) != "scf.yield":
            raise self.unsupported(f"an scf region ending in {_name(term) if term else 'nothing'}")
        self.assign(targets, [self.val(o).expr for o in term.operands], out, "    " * ind)

    def h_for(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        lb, ub, step, *inits = (self.val(o) for o in op.operands)
        pad = "    " * ind
        self.loops = True
        unsigned = prop(op, "unsignedCmp") is not None
        w = lb.width

        def bound(v: _Val) -> str:
            if unsigned:
                return v.expr
            if isinstance(v.const, int):
                return str(v.const - (1 << w) if v.const >> (w - 1) else v.const)
            return f"(({v.expr} ^ {1 << (w - 1)}) - {1 << (w - 1)})"

        results = [self.define(r, self.fresh(), 2).expr for r in op.results]
        self.assign(results, [i.expr for i in inits], out, pad)
        body = op.regions[0].blocks[0]
        iv, *carried = body.args
        for a, r in zip(carried, results, strict=True):
            self.define(a, r, 2)
        rng = self.fresh("_rng")
        if isinstance(step.const, int) and 0 < step.const < 1 << (w - 1):
            out.append(f"{pad}{rng} = range({bound(lb)}, {bound(ub)}, {step.const})")
        else:
            out.append(f"{pad}{rng} = _range({bound(lb)}, {bound(ub)}, {bound(step)})")
        out.append(f"{pad}_n += len({rng})")
        out.append(f"{pad}if _n > STEP_LIMIT: _too_long()")
        s = self.fresh("_s")
        out.append(f"{pad}for {s} in {rng}:")
        ivv = self.define(iv, self.fresh(), 2)
        out.append(f"{pad}    {ivv.expr} = {s} & {(1 << w) - 1}")
        self.yield_into(body, results, out, ind + 1)

    def h_while(self, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
        pad = "    " * ind
        self.loops = True
        inits = [self.val(o).expr for o in op.operands]
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        carried = [self.define(a, self.fresh(), 2).expr for a in before.args]
        results = [self.define(r, self.fresh(), 2).expr for r in op.results]
        self.assign(carried, inits, out, pad)
        out.append(f"{pad}while True:")
        out.append(f"{pad}    _n += 1")
        out.append(f"{pad}    if _n > STEP_LIMIT: _too_long()")
        term = self.region_body(before, out, ind + 1)
        if term is None or _name(term) != "scf.condition":
            raise self.unsupported("scf.while whose before region ends otherwise")
        cond, *passed = (self.val(o).expr for o in term.operands)
        out.append(f"{pad}    if not {cond}:")
        self.assign(results, passed, out, pad + "        ")
        out.append(f"{pad}        break")
        after_args = [self.define(a, self.fresh(), 2).expr for a in after.args]
        self.assign(after_args, passed, out, pad + "    ")
        self.yield_into(after, carried, out, ind + 1)


_HANDLERS: dict[str, Callable[[_Compiler, Operation, str, list[str], int, bool], None]] = {
    "arith.constant": _Compiler.h_constant,
    "arith.negf": _Compiler.h_negf,
    "arith.cmpi": _Compiler.h_cmpi,
    "arith.cmpf": _Compiler.h_cmpf,
    "arith.select": _Compiler.h_select,
    "memref.load": _Compiler.h_load,
    "memref.store": _Compiler.h_store,
    "memref.dim": _Compiler.h_dim,
    "scf.if": _Compiler.h_if,
    "scf.for": _Compiler.h_for,
    "scf.while": _Compiler.h_while,
    "gpu.printf": _Compiler.h_printf,
    "cf.assert": _Compiler.h_assert,
    "gpu.barrier": _Compiler.h_barrier,
    "gpu.all_reduce": _Compiler.h_reduce,
    "gpu.subgroup_reduce": _Compiler.h_reduce,
    "gpu.shuffle": _Compiler.h_shuffle,
    "gpu.subgroup_mma_load_matrix": _Compiler.h_mma_load,
    "gpu.subgroup_mma_store_matrix": _Compiler.h_mma_store,
    "gpu.subgroup_mma_compute": _Compiler.h_mma_compute,
    "gpu.subgroup_mma_constant_matrix": _Compiler.h_mma_constant,
    **kernel_vector.HANDLERS,
    **{name: _Compiler.h_id for name in _IDS},
}
_MATH = frozenset({*kernel_math.UNARY, *kernel_math.BINARY, *kernel_math.INTEGER,
                   "math.sincos", "math.fma"})
# The ops a kernel body may hold (`_Compiler.op`'s tables, and the block
# terminators `func_terminator` and the scf regions compile): any other is
# KernelUnsupported, naming it.
HANDLED_OPS: frozenset[str] = frozenset({
    *_HANDLERS, *_INT_BIN, *_INT_DIV, *_FLOAT_BIN, *_CASTS, *_MATH,
    "gpu.return", "cf.br", "cf.cond_br", "scf.yield", "scf.condition"})


def _accesses(func: Operation) -> tuple[frozenset[int], frozenset[int]]:
    """(reads, writes): memref parameters loaded from, stored to (any other use
    but `memref.dim` counts as both)."""
    entry = func.regions[0].blocks[0]
    reads: set[int] = set()
    writes: set[int] = set()
    for p, arg in enumerate(entry.args):
        if not isinstance(arg.type, builtin.MemRefType):
            continue
        for use in arg.uses:
            name = _name(use.operation)
            if name == "memref.dim":
                continue
            if name == "memref.load" and use.index == 0:
                reads.add(p)
            elif name == "memref.store" and use.index == 1:
                writes.add(p)
            else:
                reads.add(p)
                writes.add(p)
    return frozenset(reads), frozenset(writes)


# -- kernels ------------------------------------------------------------------
class InterpretedKernel:
    """A `kernel_api.Kernel` run by the compiled interpreter."""

    def __init__(self, name: str, params: tuple[Param, ...], reads: frozenset[int],
                 writes: frozenset[int], launch: Callable[..., None],
                 cuda: str | None = None) -> None:
        self.name = name
        self.params = params
        self.reads = reads
        self.writes = writes
        self.cuda = cuda
        self._launch = launch

    @property
    def source(self) -> str:
        """The Python the body compiled to (for debugging)."""
        return str(getattr(self._launch, "source", ""))

    def run(self, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
            memory: DeviceMemory) -> None:
        if len(args) != len(self.params):
            raise TypeError(f"kernel @{self.name} takes {len(self.params)} arguments, "
                            f"{len(args)} given")
        for k, (param, arg) in enumerate(zip(self.params, args, strict=True)):
            if (param.kind == "memref") != isinstance(arg, MemRefView):
                raise TypeError(f"kernel @{self.name} argument {k}: {param.type} expected, "
                                f"got {arg!r}")
            if isinstance(arg, MemRefView) and (len(arg.sizes) != param.rank
                                                or len(arg.strides) != param.rank):
                raise TypeError(f"kernel @{self.name} argument {k}: a rank-{param.rank} view "
                                f"expected, got sizes {arg.sizes} strides {arg.strides}")
        try:
            self._launch(tuple(grid), tuple(block), args, memory)
        except ZeroDivisionError as e:
            raise KernelUnsupported(f"kernel @{self.name} divides an integer by zero "
                                    "(undefined behaviour)") from e
        except (_UB, CollectiveUB) as e:
            raise KernelUnsupported(f"kernel @{self.name}: {e} (undefined behaviour)") from e

    def __repr__(self) -> str:
        return f"<kernel @{self.name}{' with CUDA' if self.cuda else ''}>"


def _func_part(symbol: str) -> str:
    return symbol.split("::")[-1].lstrip("@").strip('"')


@lru_cache(maxsize=2048)
def load_kernel(func_text: str, symbol: str) -> Kernel:
    """The kernel `symbol` ("kernels::fill_4xf32", "@kernels::@fill_4xf32" or
    "fill_4xf32") of `func_text`: a `gpu.func` (custom or generic form), or a
    text holding it.  Raises `KernelUnsupported` naming what is not modelled,
    `ValueError` when the text has no such function."""
    func = _func_part(symbol)
    name = symbol.replace("@", "").replace('"', "")
    kernel = kernel_of_func(name, _parse(func_text, func))
    ref = catalogue_ref(func)
    if ref is not None and _signature(kernel) == _catalogue_signature(ref):
        from gpu_alloc_verify.oracles.kernel_cuda import cuda_source

        kernel.cuda = cuda_source(ref)
    return kernel


def kernel_of_func(name: str, op: Operation) -> InterpretedKernel:
    """The kernel of a parsed (or built) `gpu.func` op."""
    compiler = _Compiler(name, op)
    launch = compiler.compile()
    reads, writes = _accesses(op)
    return InterpretedKernel(name, tuple(compiler.params), reads, writes, launch)


def _signature(kernel: InterpretedKernel) -> tuple[tuple[Param, ...], str]:
    """What the kernel computes: equal signatures, equal semantics (the Python the
    body compiles to does not depend on value names or the form it was read in)."""
    return kernel.params, kernel.source


@lru_cache(maxsize=256)
def _catalogue_signature(ref: KernelRef) -> tuple[tuple[Param, ...], str] | None:
    from gpu_alloc_verify.verify.model.kernels import kernel_text

    try:
        op = _parse(kernel_text(ref), ref.name)
        compiler = _Compiler(ref.name, op)
        launch = compiler.compile()
    except (KernelUnsupported, ValueError):
        return None
    return tuple(compiler.params), str(getattr(launch, "source", ""))


@lru_cache(maxsize=1024)
def catalogue_kernel(ref: KernelRef) -> Kernel:
    """The catalogue kernel `ref` (`verify.model.kernels`), named "kernels::<name>",
    with its CUDA C source attached."""
    from gpu_alloc_verify.oracles.kernel_cuda import cuda_source
    from gpu_alloc_verify.verify.model.kernels import kernel_text

    kernel = load_kernel(kernel_text(ref), f"kernels::{ref.name}")
    if kernel.cuda is None:
        kernel = copy.copy(kernel)
        kernel.cuda = cuda_source(ref)
    return kernel


def catalogue_ref(name: str) -> KernelRef | None:
    """The catalogue entry a kernel symbol names ("scale_4xf32",
    "kernels::scale_Dx4xbf16_s1"), or None (`verify.model.kernels.parse_kernel_name`)."""
    from gpu_alloc_verify.verify.model.kernels import parse_kernel_name

    return parse_kernel_name(_func_part(name))


def same_as_catalogue(func_text: str, name: str) -> str | None:
    """None when the `gpu.func @name` of `func_text` (a text holding it, custom
    or generic form) computes what the catalogue kernel of that name does (the
    signature `load_kernel` compares); else why not, naming the kernel."""
    ref = catalogue_ref(name)
    func = _func_part(name)
    if ref is None:
        return f"kernel @{func} is not a catalogue kernel (verify.model.kernels)"
    try:
        kernel = load_kernel(func_text, func)
    except (KernelUnsupported, ValueError) as e:
        return f"kernel @{func} cannot be read to compare it with the catalogue's: {e}"
    if not isinstance(kernel, InterpretedKernel) \
            or _signature(kernel) != _catalogue_signature(ref):
        return f"kernel @{func}'s body is not the catalogue's {ref.shape}"
    return None
