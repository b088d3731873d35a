"""Run a lowered module (what `gpu-to-llvm` emits) with `mgpu*` calls on a Runtime.

A direct walker over xDSL's parsed IR, for the small LLVM-dialect subset the
lowering produces (constants, pointer arithmetic, descriptor structs, calls,
loads and stores) plus the `scf`, `cf`, `arith` and `memref` ops it leaves
alone.  It works on registered ops and on generic (unregistered) ones alike:
every attribute is read by name, every type by its printed form.  It also
walks `verify.ir.fastparse`'s lighter model of the same text (types as text, a
few attribute kinds; see `oracles.fast_ir`), some 40 times cheaper to read
than xDSL's parse; where that model falls short it raises
`fastparse.Unsupported`, and the caller reruns on xDSL's parse.

Values: integers are Python ints kept modulo 2**width (unsigned), pointers are
ints (0 is null), floats are floats, and LLVM aggregates are `Agg`s keyed by
position.  Host loads and stores go to the runtime as `host_read` /
`host_write`, so the runtime checks memory kinds and races.

`gpu.launch_func` and the `gpu.*` ops a lowering left behind are run by
`oracles.lowered_gpu` (launches on their stream, residues with their source
meaning).  `malloc`/`free` (host buffers) are host memory on the runtime.
Anything else the walker does not model ends the run as "unsupported", with
the op named; no input crashes the harness.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from math import prod
from typing import Any, Literal, cast

from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.parser import Parser

from gpu_alloc_verify.oracles import fast_ir, lowered_gpu, lowered_host, strided
from gpu_alloc_verify.oracles.dense_init import dense_bytes
from gpu_alloc_verify.oracles.kernel_api import Kernel, KernelUnsupported
from gpu_alloc_verify.oracles.kernel_interp import ROUND, _fdiv, _frem
from gpu_alloc_verify.oracles.llvm_values import (
    ARITH_BINARY,
    BINARY,
    FLOAT_FMT,
    ICMP,
    Agg,
    LLVMValue,
    Unsupported,
    bf16_bits,
    bf16_value,
    constant_value,
    decode,
    encode,
    field_offset,
    int_width,
    ints,
    layout,
    prop,
    signed,
    type_name,
)
from gpu_alloc_verify.oracles.mgpu_calls import (
    NO_EFFECT,
    NormalizedCall,
    RawCall,
    UnknownCall,
    dispatch,
    normalize_trace,
)
from gpu_alloc_verify.oracles.runtime import Outcome, Runtime
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.locations import source_key
from gpu_alloc_verify.verify.ir.lowered_ir import module_ops, op_name
from gpu_alloc_verify.verify.ir.parse import NotParsed, ReaderDeclined, parse
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue
from gpu_alloc_verify.verify.ir.xdsl_context import all_dialects

LoweredStatus = Literal["ok", "incomplete", "unsupported", "error"]
RESIDUES = ("gpu.wait", "gpu.alloc", "gpu.dealloc", "gpu.memset", "gpu.memcpy")
STEP_LIMIT = 200_000
# Stack slots (`llvm.alloca`) live here, outside the runtime's memory: the
# host's own scratch, neither a buffer the program observes nor one the
# runtime checks.
STACK_BASE = 0x5A00_0000_0000
# `llvm.mlir.addressof @f` of a function is FUNCTION_BASE + its index: an
# address a call through the pointer resolves, through memory and casts too.
FUNCTION_BASE = 0x5F00_0000_0000
STACK_LIMIT = 1 << 24
DYNAMIC_INDEX = -2147483648


def parse_module(text: str) -> ModuleOp:
    """Parse lowered MLIR (generic form) with every xDSL dialect registered:
    xDSL's classes, which the interpreter runs where the fast reader's
    objects fall short (`read_fast` first)."""
    try:
        module: ModuleOp = parse(text, side="lowered", reader="xdsl", opaque=False)
    except NotParsed as e:
        raise e.error from None  # xDSL's own error, as its callers expect
    return module


def read_fast(text: str) -> fastparse.Op | None:
    """`verify.ir.fastparse`'s module of lowered text, or None where that reader
    declines the text."""
    try:
        module: fastparse.Op = parse(text, side="lowered", reader="fast")
    except ReaderDeclined:
        return None
    return module


def residual_gpu_ops(module: Operation) -> list[str]:
    """Names of the `gpu.*` ops left in a lowered module (empty: complete)."""
    return sorted({n for n in map(op_name, module.walk()) if n.startswith("gpu.")})


def op_loc(op: IROp) -> str | None:
    """The source op key a lowered op carries (`verify.ir.locations.source_key`:
    `loc("op4")`, also inside fused locations; a user's `file:line:col`),
    on xDSL's ops and the fast reader's (which keep the location's text) alike."""
    return source_key(getattr(op, "location", None))


@dataclass
class LoweredRun:
    status: LoweredStatus
    outcome: Outcome | None
    trace: list[NormalizedCall] = field(default_factory=list)
    raw_trace: list[RawCall] = field(default_factory=list)
    reason: str = ""
    token_residue: bool = False  # handle counts depend on an op left unlowered


_Flow = tuple[str, Any] | None  # ("br", (block, values)) / ("yield" | "return", values)


class _Machine:
    def __init__(self, module: Any, rt: Runtime,
                 kernels: Mapping[str, Kernel] | None = None) -> None:
        self.rt = rt
        self.fast = isinstance(module, fastparse.Op)  # the fast reader's model
        self.kernels = dict(kernels or {})  # kernel symbol name -> what runs it
        self.token_residue = False  # a leftover gpu op took or made a token
        self.residue_streams: set[int] = set()  # the streams residues' tokens are
        self.env: dict[IRValue, Any] = {}
        self.steps = 0
        self.raw: list[RawCall] = []
        self.stack = bytearray()  # every llvm.alloca slot, from STACK_BASE on
        self.addresses: dict[int, str] = {}  # function address -> symbol
        self.declared: set[str] = set()  # every llvm.func/func.func, bodies or not
        self.funcs: dict[str, Operation] = {}
        # Host globals (top level only: a gpu.module's are the kernel's) and
        # the buffer each got at its first `llvm.mlir.addressof`.
        self.globals: dict[str, Operation] = {}
        self.global_ptrs: dict[str, int] = {}
        for op in module.regions[0].blocks[0].ops:
            if op_name(op) == "llvm.mlir.global":
                sym = getattr(prop(op, "sym_name"), "data", None)
                if isinstance(sym, str):
                    self.globals[sym] = op
        # Functions live at the module's top: a walk of every op would be
        # quadratic when a module is run once per function.
        for op in module_ops(module):
            if op_name(op) in ("llvm.func", "func.func"):
                sym = getattr(prop(op, "sym_name"), "data", None)  # either model's string
                if isinstance(sym, str):
                    self.funcs[sym] = op
                    self.declared.add(sym)

    # -- control flow -------------------------------------------------------
    def call_function(self, name: str, args: Sequence[Any]) -> list[Any]:
        fn = self.funcs.get(name)
        if fn is None:
            raise Unsupported(f"no function @{name}")
        region = fn.regions[0]
        if not region.blocks:
            raise Unsupported(f"@{name} is external")
        if len(region.blocks[0].args) != len(args):
            raise Unsupported(f"@{name} takes {len(region.blocks[0].args)} argument(s), "
                              f"given {len(args)}")
        _, values = self.run_region(region, list(args))
        return list(values)

    def run_region(self, region: Region, args: list[Any]) -> tuple[str, list[Any]]:
        block: Block | None = region.blocks[0]
        values = args
        while block is not None:
            for arg, v in zip(block.args, values, strict=False):
                self.env[arg] = v
            flow: _Flow = None
            for op in block.ops:
                flow = self.step(op)
                if flow is not None:
                    break
            if flow is None:
                return "yield", []  # an empty region (e.g. a missing else)
            kind, payload = flow
            if kind == "br":
                block, values = payload
                continue
            return kind, payload
        raise Unsupported("fell off a region")

    def v(self, value: IRValue) -> Any:
        return self.env[value]

    def step(self, op: Operation) -> _Flow:
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise Unsupported(f"more than {STEP_LIMIT} steps")
        name = op_name(op)
        dialect, _, short = name.partition(".")
        if dialect == "gpu":
            if name == "gpu.launch_func":
                lowered_gpu.launch_func(self, op)
            elif name in RESIDUES:
                lowered_gpu.residue(self, op, name)
            else:
                raise Unsupported(f"residual {name}")
            return None
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, op)
        if dialect == "llvm" and short in BINARY:
            return self.binary(op, short)
        if dialect == "arith" and short in ARITH_BINARY:
            return self.binary(op, ARITH_BINARY[short])
        raise Unsupported(f"op {name}")

    @staticmethod
    def loc_of(op: IROp) -> str | None:
        return op_loc(op)

    def width(self, t: Attribute | str) -> int:
        """The bits of an integer type the op computes in; another type ends
        the run as not modelled."""
        w = int_width(t)
        if w is not None:
            return w
        if self.fast:  # xDSL may print the type differently: the run is redone on its parse
            raise fastparse.Unsupported(f"not an integer type: {type_name(t)}")
        raise Unsupported(f"not an integer type: {type_name(t)}")

    def set(self, op: IROp, *values: Any) -> _Flow:
        for r, value in zip(op.results, values, strict=False):
            self.env[r] = value
        return None

    def binary(self, op: Operation, kind: str) -> _Flow:
        w = self.width(op.results[0].type)
        a, b = self.v(op.operands[0]), self.v(op.operands[1])
        return self.set(op, BINARY[kind](a, b, w) & ((1 << w) - 1))

    # -- calls ---------------------------------------------------------------
    def address_of(self, op: Operation) -> _Flow:
        ref = prop(op, "global_name")
        name = getattr(getattr(ref, "root_reference", ref), "data", None)
        if isinstance(name, str) and name in self.globals:
            return self.set(op, self.global_buffer(name))
        if not isinstance(name, str) or name not in self.declared:
            raise Unsupported(f"llvm.mlir.addressof of global @{name}")
        address = FUNCTION_BASE + sorted(self.declared).index(name)
        self.addresses[address] = name
        return self.set(op, address)

    def global_buffer(self, name: str) -> int:
        """The host buffer of global @name, made and initialized at its first
        use and labelled by the global's location, as the source side does
        at its first `memref.get_global`."""
        if name in self.global_ptrs:
            return self.global_ptrs[name]
        glob = self.globals[name]
        size = layout(cast("Attribute | str", fast_ir.type_of(prop(glob, "global_type"))))[0]
        value = prop(glob, "value")
        data: bytes | None = None
        if value is not None:
            data = dense_bytes(str(value))
            if len(data) != size:
                raise Unsupported(f"global @{name}: {len(data)} initial bytes for {size}")
        elif [op_name(o) for r in glob.regions for b in r.blocks for o in b.ops] not in (
                [], ["llvm.mlir.undef", "llvm.return"]):
            raise Unsupported(f"global @{name} with an initializer region")
        self.rt.set_location(op_loc(glob))
        ptr = self.rt.host_alloc(size)
        if data is not None:
            self.rt.initialize(ptr, data)
        self.global_ptrs[name] = ptr
        return ptr

    def call(self, op: Operation) -> _Flow:
        root = getattr(prop(op, "callee"), "root_reference", None)  # either model's ref
        operands = list(op.operands)
        if root is None:  # through a function pointer: its first operand
            target = int(self.v(operands[0]) or 0)
            if target not in self.addresses:
                raise Unsupported(f"indirect call through {target:#x}, no function's address")
            name, operands = self.addresses[target], operands[1:]
        else:
            name = root.data
        args = [self.v(x) for x in operands]
        fn = self.funcs.get(name)
        if fn is not None and fn.regions and fn.regions[0].blocks:
            return self.set(op, *self.call_function(name, args))
        if name in ("malloc", "free") and len(args) == 1:  # memref.alloc's host memory
            self.rt.set_location(op_loc(op))
            if name == "malloc":
                return self.set(op, self.rt.host_alloc(int(args[0] or 0)))
            self.rt.host_free(int(args[0] or 0))
            return None
        if name in NO_EFFECT:  # nothing observable; arguments may be aggregates
            return None
        if name in lowered_host.DEVICE_MEMREF and len(args) == 5:
            _, aligned, offset, size, stride = (int(a or 0) for a in args)
            return self.set(op, Agg({(0,): aligned, (1,): aligned, (2,): offset,
                                     (3, 0): size, (4, 0): stride}))
        if name.startswith("_mlir_ciface_") and name[13:] in lowered_host.PRINTERS \
                and len(args) == 1:
            # The C interface passes the unranked memref {rank, descriptor*}
            # through a pointer (`llvm.emit_c_interface`).
            raw = self.read_bytes(op, int(args[0] or 0), 16)
            if raw is not None:
                lowered_host.print_memref(
                    name[13:], [int.from_bytes(raw[:8], "little"),
                                int.from_bytes(raw[8:], "little")],
                    lambda addr, n: self.read_bytes(op, addr, n))
            return None
        if name in lowered_host.PRINTERS:  # a body of its own was called above
            lowered_host.print_memref(name, [int(a or 0) for a in args],
                                      lambda addr, n: self.read_bytes(op, addr, n))
            return None
        kinds = "".join("p" if type_name(x.type) == "!llvm.ptr" else "i" for x in operands)
        loc = op_loc(op)
        self.rt.set_location(loc)
        if self.residue_streams and lowered_gpu.event_use(
                self, name, [int(a or 0) for a in args]):
            self.raw.append(RawCall(name, tuple(int(a or 0) for a in args), kinds, None, loc))
            return self.set(op, None)
        try:
            result = dispatch(self.rt, name, [int(a or 0) for a in args], kinds)
        except UnknownCall as e:
            raise Unsupported(str(e)) from None
        self.raw.append(RawCall(name, tuple(int(a or 0) for a in args), kinds, result, loc))
        return self.set(op, result)

    # -- memory ---------------------------------------------------------------
    def gep(self, op: Operation) -> _Flow:
        ptr = self.v(op.operands[0])
        dynamic = iter(op.operands[1:])
        t = cast("Attribute | str", fast_ir.type_of(prop(op, "elem_type")))
        offset = 0
        for k, raw in enumerate(ints(prop(op, "rawConstantIndices"))):
            idx = signed(self.v(next(dynamic)), 64) if raw == DYNAMIC_INDEX else raw
            if k == 0:
                offset += idx * layout(t)[0]
            else:
                field_off, t = field_offset(t, idx)
                offset += field_off
        return self.set(op, (int(ptr or 0) + offset) & ((1 << 64) - 1))

    def alloca(self, op: Operation) -> _Flow:
        t = cast("Attribute | str", fast_ir.type_of(prop(op, "elem_type")))
        size = layout(t)[0] * int(self.v(op.operands[0]))
        base = len(self.stack) + (-len(self.stack) % 16)
        if base + size > STACK_LIMIT:
            raise Unsupported(f"llvm.alloca of more than {STACK_LIMIT} bytes in all")
        self.stack.extend(bytes(base + size - len(self.stack)))
        return self.set(op, STACK_BASE + base)

    def _slot(self, addr: int, n: int) -> int | None:
        """The offset of [addr, addr + n) in the stack, None if not in it."""
        off = addr - STACK_BASE
        if 0 <= off and off + n <= len(self.stack):
            return off
        if 0 <= off < STACK_LIMIT:
            raise Unsupported(f"an access past the stack slots at {addr:#x}")
        return None

    def load(self, op: Operation) -> _Flow:
        t = op.results[0].type
        addr, n = int(self.v(op.operands[0]) or 0), layout(t)[0]
        off = self._slot(addr, n)
        if off is not None:
            return self.set(op, decode(bytes(self.stack[off:off + n]), t))
        self.rt.set_location(op_loc(op))
        data = self.rt.host_read(addr, n)
        return self.set(op, decode(data, t) if data is not None else 0)

    def store(self, op: Operation) -> _Flow:
        value, ptr = op.operands[0], op.operands[1]
        addr, data = int(self.v(ptr) or 0), encode(self.v(value), value.type)
        off = self._slot(addr, len(data))
        if off is not None:
            self.stack[off:off + len(data)] = data
            return None
        self.rt.set_location(op_loc(op))
        self.rt.host_write(addr, data)
        return None

    def read_bytes(self, op: Operation, addr: int, n: int) -> bytes | None:
        """n bytes at addr, from a stack slot or the runtime (None: refused)."""
        off = self._slot(addr, n)
        if off is not None:
            return bytes(self.stack[off:off + n])
        self.rt.set_location(op_loc(op))
        return self.rt.host_read(addr, n)

    def memcpy(self, op: Operation) -> _Flow:
        """`llvm.intr.memcpy(dst, src, len)` (LLVM 16 adds an i1 isVolatile
        operand): the bytes read whole, then written, each through the stack
        or the runtime as a load and a store go."""
        dst, src, n = (int(self.v(x) or 0) for x in op.operands[:3])
        if n == 0:
            return None
        data = self.read_bytes(op, src, n)
        if data is None:  # refused: the runtime has recorded why
            return None
        off = self._slot(dst, n)
        if off is not None:
            self.stack[off:off + n] = data
            return None
        self.rt.set_location(op_loc(op))
        self.rt.host_write(dst, data)
        return None

    def memref_address(self, op: Operation, mref: SSAValue, idx: Sequence[SSAValue]) -> int:
        desc = self.v(mref)
        if not isinstance(desc, Agg):
            raise Unsupported("memref access on a value that is no descriptor")
        elem = fast_ir.memref_element(mref.type) if isinstance(mref.type, str) \
            else getattr(mref.type, "element_type", None)
        if elem is None:
            raise Unsupported(f"memref access on {mref.type}")
        linear = desc.int_at((2,))
        for d, i in enumerate(idx):
            linear += int(self.v(i)) * desc.int_at((4, d))
        return desc.int_at((1,)) + linear * layout(elem)[0]

    def memref_load(self, op: Operation) -> _Flow:
        elem = op.results[0].type
        addr = self.memref_address(op, op.operands[0], op.operands[1:])
        self.rt.set_location(op_loc(op))
        data = self.rt.host_read(addr, layout(elem)[0])
        return self.set(op, decode(data, elem) if data is not None else 0)

    def memref_store(self, op: Operation) -> _Flow:
        value = op.operands[0]
        addr = self.memref_address(op, op.operands[1], op.operands[2:])
        self.rt.set_location(op_loc(op))
        self.rt.host_write(addr, encode(self.v(value), value.type))
        return None

    # -- casts ----------------------------------------------------------------
    def bitcast(self, op: Operation) -> _Flow:
        src, dst = type_name(op.operands[0].type), type_name(op.results[0].type)
        value = self.v(op.operands[0])
        if src == "bf16" and dst != "bf16":
            return self.set(op, bf16_bits(float(value)))
        if dst == "bf16" and src != "bf16":
            return self.set(op, bf16_value(int(value)))
        if src in FLOAT_FMT and dst not in FLOAT_FMT:
            value = int.from_bytes(struct.pack(FLOAT_FMT[src], value), "little")
        elif dst in FLOAT_FMT and src not in FLOAT_FMT:
            nbytes = layout(op.operands[0].type)[0]
            value = struct.unpack(FLOAT_FMT[dst], int(value).to_bytes(nbytes, "little"))[0]
        return self.set(op, value)

    def resize(self, op: Operation, sign_extend: bool) -> _Flow:
        value = int(self.v(op.operands[0]))
        w_in, w_out = self.width(op.operands[0].type), self.width(op.results[0].type)
        if sign_extend:
            value = signed(value, w_in)
        return self.set(op, value & ((1 << w_out) - 1))

    def cast(self, op: Operation) -> _Flow:
        if len(op.operands) != len(op.results):
            raise Unsupported("unrealized_conversion_cast with N:M values")
        values = []
        for x, r in zip(op.operands, op.results, strict=True):
            value = self.v(x)
            if isinstance(value, lowered_gpu.ResidueToken) and \
                    "gpu.async.token" not in type_name(r.type):
                value = value.stream  # see lowered_gpu: where it is used as an event
            values.append(value)
        return self.set(op, *values)

    # -- structured control flow ---------------------------------------------
    def scf_if(self, op: Operation) -> _Flow:
        region = op.regions[0] if self.v(op.operands[0]) else op.regions[1]
        if not region.blocks:
            return None
        _, values = self.run_region(region, [])
        return self.set(op, *values)

    def scf_for(self, op: Operation) -> _Flow:
        lb, ub, st, *inits = (self.v(x) for x in op.operands)
        w = self.width(op.operands[0].type)
        carried = list(inits)
        i = lb
        while signed(i, w) < signed(ub, w):
            _, carried = self.run_region(op.regions[0], [i, *carried])
            i = (i + st) & ((1 << w) - 1)
        return self.set(op, *carried)

    def scf_while(self, op: Operation) -> _Flow:
        """`before` ends in scf.condition(c, values): `after` takes the values
        and yields the next round's, until c is false; the op's results are
        then the values."""
        carried = [self.v(x) for x in op.operands]
        while True:
            _, passed = self.run_region(op.regions[0], carried)
            if not passed:
                raise Unsupported("scf.while whose before region ends without scf.condition")
            if not passed[0]:
                return self.set(op, *passed[1:])
            _, carried = self.run_region(op.regions[1], passed[1:])

    def memref_subview(self, op: Operation) -> _Flow:
        desc = self.v(op.operands[0])
        if not isinstance(desc, Agg):
            raise Unsupported("memref.subview of a value that is no descriptor")
        dims, _ = lowered_gpu.memref_shape(op.operands[0].type)
        result_dims, _ = lowered_gpu.memref_shape(op.results[0].type)
        rank = len(dims)
        segments = list(ints(prop(op, "operandSegmentSizes")))
        if len(segments) != 4:
            raise Unsupported("memref.subview without operand segments")
        dynamic = [int(self.v(x)) for x in op.operands[1:]]
        n_off, n_size = segments[1], segments[2]
        offsets = strided.mixed(ints(prop(op, "static_offsets")), dynamic[:n_off])
        sizes = strided.mixed(ints(prop(op, "static_sizes")), dynamic[n_off:n_off + n_size])
        steps = strided.mixed(ints(prop(op, "static_strides")), dynamic[n_off + n_size:])
        src = (desc.int_at((2,)),
               tuple(desc.int_at((3, d)) for d in range(rank)),
               tuple(desc.int_at((4, d)) for d in range(rank)))
        offset, shape, strides = strided.subview(
            src, [signed(x, 64) for x in offsets], [signed(x, 64) for x in sizes],
            [signed(x, 64) for x in steps], [-1 if d is None else d for d in result_dims])
        items: dict[tuple[int, ...], LLVMValue] = {
            (0,): desc.extract((0,)), (1,): desc.extract((1,)), (2,): offset}
        for d, (n, st) in enumerate(zip(shape, strides, strict=True)):
            items[(3, d)], items[(4, d)] = n, st & ((1 << 64) - 1)
        return self.set(op, Agg(items))

    def memref_collapse_shape(self, op: Operation) -> _Flow:
        """Each group's sizes multiply and its stride is its innermost one
        (a group is contiguous: the op's verifier requires it)."""
        desc = self.v(op.operands[0])
        if not isinstance(desc, Agg):
            raise Unsupported("memref.collapse_shape of a value that is no descriptor")
        text = re.sub(r"\s*:\s*i64", "", str(prop(op, "reassociation")))
        try:
            groups = json.loads(text)
        except ValueError:
            raise Unsupported(f"memref.collapse_shape reassociation {text}") from None
        items: dict[tuple[int, ...], LLVMValue] = {
            (0,): desc.extract((0,)), (1,): desc.extract((1,)), (2,): desc.extract((2,))}
        for k, group in enumerate(groups):
            items[(3, k)] = prod(desc.int_at((3, d)) for d in group)
            items[(4, k)] = desc.int_at((4, group[-1])) if group else 1
        return self.set(op, Agg(items))

    def linalg_fill(self, op: Operation) -> _Flow:
        """Host writes of the value, element by element in row-major order
        (what the source side does; an unconverted fill on a host buffer)."""
        if len(op.operands) != 2 or op.results:
            raise Unsupported("linalg.fill on a tensor")
        body = op.regions[0].blocks[0]
        inner = list(body.ops)
        if len(inner) != 1 or list(inner[0].operands) != [body.args[0]]:
            raise Unsupported("a linalg.fill whose body converts the value")
        dims, elem = lowered_gpu.memref_shape(op.operands[1].type)
        desc = self.v(op.operands[1])
        if not isinstance(desc, Agg):
            raise Unsupported("linalg.fill of a value that is no descriptor")
        sizes = [desc.int_at((3, d)) for d in range(len(dims))]
        strides = [desc.int_at((4, d)) for d in range(len(dims))]
        base, offset = desc.int_at((1,)), desc.int_at((2,))
        data = encode(self.v(op.operands[0]), op.operands[0].type)
        if len(data) != layout(elem)[0]:
            raise Unsupported(f"linalg.fill of a {type_name(op.operands[0].type)} into {elem}")
        self.rt.set_location(op_loc(op))
        for idx in product(*(range(n) for n in sizes)):
            linear = offset + sum(i * st for i, st in zip(idx, strides, strict=True))
            self.rt.host_write((base + linear * len(data)) & ((1 << 64) - 1), data)
        return None

    def affine_apply(self, op: Operation) -> _Flow:
        amap = _affine_map(prop(op, "map"))
        values = [signed(self.v(x), 64) for x in op.operands]  # index: two's complement
        try:
            (result,) = amap.eval(values[: amap.num_dims], values[amap.num_dims :])
        except ZeroDivisionError:
            raise Unsupported("affine.apply dividing by zero") from None
        return self.set(op, result & ((1 << 64) - 1))

    def branch(self, op: Operation) -> _Flow:
        return "br", (op.successors[0], [self.v(x) for x in op.operands])

    def cond_branch(self, op: Operation) -> _Flow:
        then_args = getattr(op, "then_arguments", None)
        else_args = getattr(op, "else_arguments", None)
        if then_args is None or else_args is None:
            sizes = ints(prop(op, "operandSegmentSizes"))
            if len(sizes) != 3:
                raise Unsupported(f"{op_name(op)} without operand segments")
            ops = list(op.operands)
            then_args = ops[1 : 1 + sizes[1]]
            else_args = ops[1 + sizes[1] :]
        taken = 0 if self.v(op.operands[0]) else 1
        chosen = then_args if taken == 0 else else_args
        return "br", (op.successors[taken], [self.v(x) for x in chosen])


@lru_cache(maxsize=256)
def _map_of_text(text: str) -> AffineMap:
    attr = Parser(all_dialects(), text).parse_attribute()
    if not isinstance(attr, AffineMapAttr):
        raise Unsupported(f"affine.apply with map {text}")
    return attr.data


def _affine_map(attr: Any) -> AffineMap:
    """An affine.apply's map, from xDSL's attribute or the fast reader's text."""
    amap = attr.data if isinstance(attr, AffineMapAttr) else _map_of_text(str(attr))
    if len(amap.results) != 1:
        raise Unsupported(f"affine.apply with {len(amap.results)} results")
    return amap


# Float arithmetic, rounded once to the result type as the kernel
# interpreter and xDSL's FloatAttr round (IEEE: one correctly rounded op).
_FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _fdiv, "rem": _frem,
}


def _float_binary(kind: str) -> Callable[[_Machine, Operation], _Flow]:
    def run(m: _Machine, op: Operation) -> _Flow:
        t = type_name(op.results[0].type)
        if t not in ROUND:
            raise Unsupported(f"{op_name(op)} on {t}")
        a, b = (float(m.v(x)) for x in op.operands[:2])
        return m.set(op, ROUND[t](_FLOAT_BINARY[kind](a, b)))
    return run


def _constant(m: _Machine, op: Operation) -> _Flow:
    return m.set(op, constant_value(prop(op, "value")))


def _zero(m: _Machine, op: Operation) -> _Flow:
    t = op.results[0].type
    name = type_name(t)
    if name in FLOAT_FMT:
        return m.set(op, 0.0)
    if name == "!llvm.ptr" or name.startswith("i"):
        return m.set(op, 0)
    return m.set(op, Agg(default=0))


def _undef(m: _Machine, op: Operation) -> _Flow:
    name = type_name(op.results[0].type)
    return m.set(op, Agg() if name.startswith("!llvm.struct") or name.startswith("!llvm.arr")
                 else 0)


def _icmp(m: _Machine, op: Operation) -> _Flow:
    pred = prop(op, "predicate")
    assert isinstance(pred, IntegerAttr | fastparse.IntegerAttr)  # as `.value.data` needs
    w = m.width(op.operands[0].type)
    a, b = m.v(op.operands[0]), m.v(op.operands[1])
    return m.set(op, int(ICMP[int(pred.value.data)](a, b, w)))


def _select(m: _Machine, op: Operation) -> _Flow:
    c, a, b = (m.v(x) for x in op.operands)
    return m.set(op, a if c else b)


_HANDLERS: dict[str, Callable[[_Machine, Operation], _Flow]] = {
    **{f"llvm.f{k}": _float_binary(k) for k in _FLOAT_BINARY},
    **{f"arith.{k}f": _float_binary(k) for k in _FLOAT_BINARY},
    "llvm.fneg": lambda m, op: m.set(op, -float(m.v(op.operands[0]))),
    "arith.negf": lambda m, op: m.set(op, -float(m.v(op.operands[0]))),
    "llvm.mlir.constant": _constant,
    "arith.constant": _constant,
    "llvm.mlir.zero": _zero,
    "llvm.mlir.null": _zero,
    "llvm.mlir.undef": _undef,
    "llvm.mlir.poison": _undef,
    "llvm.insertvalue": lambda m, op: m.set(
        op, m.v(op.operands[0]).insert(ints(prop(op, "position")), m.v(op.operands[1]))
    ),
    "llvm.extractvalue": lambda m, op: m.set(
        op, m.v(op.operands[0]).extract(ints(prop(op, "position")))
    ),
    "llvm.getelementptr": _Machine.gep,
    # A pointer is 64 bits: to a narrower integer and back loses the top.
    "llvm.ptrtoint": lambda m, op: m.resize(op, sign_extend=False),
    "llvm.inttoptr": lambda m, op: m.resize(op, sign_extend=False),
    # One flat address space here: a pointer keeps its value across spaces.
    "llvm.addrspacecast": lambda m, op: m.set(op, m.v(op.operands[0])),
    "llvm.bitcast": _Machine.bitcast,
    "llvm.trunc": lambda m, op: m.resize(op, sign_extend=False),
    "llvm.zext": lambda m, op: m.resize(op, sign_extend=False),
    "llvm.sext": lambda m, op: m.resize(op, sign_extend=True),
    "arith.trunci": lambda m, op: m.resize(op, sign_extend=False),
    "arith.extui": lambda m, op: m.resize(op, sign_extend=False),
    "arith.extsi": lambda m, op: m.resize(op, sign_extend=True),
    "arith.index_cast": lambda m, op: m.resize(op, sign_extend=True),
    "arith.index_castui": lambda m, op: m.resize(op, sign_extend=False),
    "llvm.icmp": _icmp,
    "arith.cmpi": _icmp,
    "llvm.select": _select,
    "arith.select": _select,
    "llvm.alloca": _Machine.alloca,
    "llvm.mlir.addressof": _Machine.address_of,
    "llvm.load": _Machine.load,
    "llvm.store": _Machine.store,
    "llvm.intr.memcpy": _Machine.memcpy,
    "memref.load": _Machine.memref_load,
    "memref.store": _Machine.memref_store,
    "llvm.call": _Machine.call,
    "func.call": _Machine.call,
    "builtin.unrealized_conversion_cast": _Machine.cast,
    "scf.if": _Machine.scf_if,
    "scf.for": _Machine.scf_for,
    "scf.while": _Machine.scf_while,
    "scf.condition": lambda m, op: ("yield", [m.v(x) for x in op.operands]),
    "affine.apply": _Machine.affine_apply,
    "memref.subview": _Machine.memref_subview,
    "linalg.fill": _Machine.linalg_fill,
    "memref.collapse_shape": _Machine.memref_collapse_shape,
    "cf.br": _Machine.branch,
    "llvm.br": _Machine.branch,
    "cf.cond_br": _Machine.cond_branch,
    "llvm.cond_br": _Machine.cond_branch,
    "scf.yield": lambda m, op: ("yield", [m.v(x) for x in op.operands]),
    "llvm.return": lambda m, op: ("return", [m.v(x) for x in op.operands]),
    "func.return": lambda m, op: ("return", [m.v(x) for x in op.operands]),
}


def _as_module(lowered: str | Operation | fastparse.Op) -> Any:
    return parse_module(lowered) if isinstance(lowered, str) else lowered


def run_functions(
    lowered: str | Operation | fastparse.Op,
    calls: Sequence[tuple[str, Sequence[LLVMValue]]],
    rt: Runtime,
    kernels: Mapping[str, Kernel] | None = None,
) -> LoweredRun:
    """Run `calls` ((function, positional args), ...) in order on one runtime.

    `kernels`: what runs each kernel a `gpu.launch_func` names (by symbol
    name).  Arguments are ints, floats, or memref descriptors (`Agg`s) for a
    function that takes memrefs unexpanded.  Text is parsed with xDSL.  On a
    `verify.ir.fastparse` module, what its model does not cover raises
    `fastparse.Unsupported` rather than ending the run.
    """
    try:
        module = _as_module(lowered)
    except Exception as e:  # a parse failure is a verdict input, not a crash
        return LoweredRun("error", None, reason=f"cannot parse the lowered module: {e}")
    machine = _Machine(module, rt, kernels)
    status: LoweredStatus = "ok"
    reason = ""
    outcome: Outcome | None = None
    try:
        for name, args in calls:
            machine.call_function(name, list(args))
        rt.set_location(None)
        lowered_gpu.release(machine)
        outcome = rt.outcome()  # queued kernels run here at the latest
    except (Unsupported, KernelUnsupported) as e:
        status, reason = "unsupported", str(e)
    except fastparse.Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - any interpreter fault is reported
        if isinstance(module, fastparse.Op):  # its message would name fast objects
            raise fastparse.Unsupported(f"{type(e).__name__}: {e}") from e
        status, reason = "error", f"{type(e).__name__}: {e}"
    return LoweredRun(status, outcome, normalize_trace(machine.raw), machine.raw, reason,
                      machine.token_residue)


def run_function(
    lowered: str | Operation | fastparse.Op,
    name: str,
    args: Sequence[LLVMValue] | Mapping[str, LLVMValue],
    rt: Runtime,
    arg_names: Sequence[str] = (),
    kernels: Mapping[str, Kernel] | None = None,
) -> LoweredRun:
    """Run one function; `args` positional, or by source name with `arg_names`."""
    if isinstance(args, Mapping):
        args = [args[n] for n in arg_names]
    return run_functions(lowered, [(name, args)], rt, kernels)
