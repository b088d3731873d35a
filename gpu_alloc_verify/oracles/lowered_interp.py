"""Run a lowered module (what `gpu-to-llvm` emits) with `mgpu*` calls on a Runtime.

xDSL's interpreter framework, over the small LLVM-dialect subset the lowering
produces (constants, pointer arithmetic, descriptor structs, calls, loads and
stores) plus the `scf`, `cf`, `arith` and `memref` ops it leaves alone: one
implementation per op (`oracles.lowered_xdsl`), one external function per
runtime call (`oracles.mgpu_calls.RuntimeCalls`), registered by
`lowered_xdsl.register_all`.  Dispatch is by op name, so it runs registered
ops and generic (unregistered) ones alike, every attribute read by name,
every type by its printed form; and it runs `verify.ir.fastparse`'s lighter
model of the same text (types as text, a few attribute kinds; see
`oracles.fast_ir`), some 30 times cheaper to read than xDSL's parse.  Where
that model falls short it raises `fastparse.Unsupported`, and the caller
reruns on xDSL's parse.

Values: integers are Python ints kept modulo 2**width (unsigned), pointers are
ints (0 is null), floats are floats, and LLVM aggregates are `Agg`s keyed by
position.  Host loads and stores go to the runtime as `host_read` /
`host_write`, so the runtime checks memory kinds and races.

`gpu.launch_func` and the `gpu.*` ops a lowering left behind are run by
`oracles.lowered_gpu` (launches on their stream, residues with their source
meaning).  `malloc`/`free` (host buffers) are host memory on the runtime.
An op nobody implements gets the framework's own error, which ends the run
as "unsupported" with the op named; no input crashes the harness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from gpu_alloc_verify.oracles import fast_ir, lowered_gpu
from gpu_alloc_verify.oracles.dense_init import dense_bytes
from gpu_alloc_verify.oracles.kernel_api import Kernel, KernelUnsupported
from gpu_alloc_verify.oracles.llvm_values import (
    Agg,
    LLVMValue,
    Unsupported,
    int_width,
    layout,
    prop,
    type_name,
)
from gpu_alloc_verify.oracles.lowered_xdsl import HANDLED_OPS, register_all
from gpu_alloc_verify.oracles.lowered_xdsl.framework import NamedInterpreter, StepLimit
from gpu_alloc_verify.oracles.lowered_xdsl.memory_ops import (
    DYNAMIC_INDEX,
    FUNCTION_BASE,
    STACK_BASE,
    STACK_LIMIT,
    op_loc,
)
from gpu_alloc_verify.oracles.mgpu_calls import (
    SIGNATURES,
    SIMULATED,
    NormalizedCall,
    RawCall,
    normalize_trace,
    unknown_call,
)
from gpu_alloc_verify.oracles.runtime import Outcome, Runtime
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import module_ops, op_name
from gpu_alloc_verify.verify.ir.parse import NotParsed, ReaderDeclined, parse
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue

__all__ = ["DYNAMIC_INDEX", "FUNCTION_BASE", "HANDLED_OPS", "STACK_BASE", "STACK_LIMIT",
           "LoweredRun", "op_loc", "parse_module", "read_fast", "residual_gpu_ops",
           "run_function", "run_functions"]

LoweredStatus = Literal["ok", "incomplete", "unsupported", "error"]
STEP_LIMIT = 200_000


def parse_module(text: str) -> ModuleOp:
    """Parse lowered MLIR (generic form) with every xDSL dialect registered:
    xDSL's classes, which the interpreter runs where the fast reader's
    objects fall short (`read_fast` first)."""
    try:
        module: ModuleOp = parse(text, side="lowered", reader="xdsl", opaque=False)
    except NotParsed as e:
        raise e.error from None  # xDSL's own error, as its callers expect
    return module


@lru_cache(maxsize=1)
def read_fast(text: str) -> fastparse.Op | None:
    """`verify.ir.fastparse`'s module of lowered text, or None where that reader
    declines the text.  The last text's module is kept: `differential` and
    the execution cross-check of one check read the same text (a 5,000-op
    module: 0.2 s each), and no reader of it changes it."""
    try:
        module: fastparse.Op = parse(text, side="lowered", reader="fast")
    except ReaderDeclined:
        return None
    return module


def residual_gpu_ops(module: Operation) -> list[str]:
    """Names of the `gpu.*` ops left in a lowered module (empty: complete)."""
    return sorted({n for n in map(op_name, module.walk()) if n.startswith("gpu.")})


@dataclass
class LoweredRun:
    status: LoweredStatus
    outcome: Outcome | None
    trace: list[NormalizedCall] = field(default_factory=list)
    raw_trace: list[RawCall] = field(default_factory=list)
    reason: str = ""
    token_residue: bool = False  # handle counts depend on an op left unlowered


def _top_level(module: Any) -> tuple[dict[str, Operation], dict[str, Operation]]:
    """The module's host globals (top level only: a gpu.module's are the
    kernel's) and its functions, by symbol."""
    globals_: dict[str, Operation] = {}
    funcs: dict[str, Operation] = {}
    for op in module.regions[0].blocks[0].ops:
        if op_name(op) == "llvm.mlir.global":
            sym = getattr(prop(op, "sym_name"), "data", None)
            if isinstance(sym, str):
                globals_[sym] = op
    # Functions live at the module's top: a walk of every op would be
    # quadratic when a module is run once per function.
    for op in module_ops(module):
        if op_name(op) in ("llvm.func", "func.func"):
            sym = getattr(prop(op, "sym_name"), "data", None)  # either model's string
            if isinstance(sym, str):
                funcs[sym] = op
    return globals_, funcs


# The last module read by `_top_level`, and what it read.
_TOP: tuple[Any, dict[str, Operation], dict[str, Operation]] | None = None


class _Machine(NamedInterpreter):
    """xDSL's interpreter (dispatch by op name) with what a lowered run keeps:
    the runtime, the module's functions and globals, the stack, the raw
    trace.  The op implementations are `oracles.lowered_xdsl`'s."""

    step_limit = STEP_LIMIT

    def __init__(self, module: Any, rt: Runtime,
                 kernels: Mapping[str, Kernel] | None = None) -> None:
        super().__init__(module)
        self.rt = rt
        self.calls = register_all(self, rt)
        self.fast = isinstance(module, fastparse.Op)  # the fast reader's model
        self.kernels = dict(kernels or {})  # kernel symbol name -> what runs it
        self.token_residue = False  # a leftover gpu op took or made a token
        self.residue_streams: set[int] = set()  # the streams residues' tokens are
        self.raw: list[RawCall] = []
        self.stack = bytearray()  # every llvm.alloca slot, from STACK_BASE on
        self.addresses: dict[int, str] = {}  # function address -> symbol
        self.declared: set[str] = set()  # every llvm.func/func.func, bodies or not
        self.funcs: dict[str, Operation] = {}
        # Host globals (top level only: a gpu.module's are the kernel's) and
        # the buffer each got at its first `llvm.mlir.addressof`.
        self.globals: dict[str, Operation] = {}
        self.global_ptrs: dict[str, int] = {}
        # A module is run once per function and input: its top level is read
        # once (reading it per run is quadratic in the number of functions).
        global _TOP
        if _TOP is None or _TOP[0] is not module:
            _TOP = (module, *_top_level(module))
        self.globals, self.funcs = dict(_TOP[1]), dict(_TOP[2])
        self.declared = set(self.funcs)

    def unknown_op(self, name: str, error: InterpretationError) -> Exception:
        if name.startswith("gpu."):
            return Unsupported(f"residual {name}")
        return Unsupported(f"op {name}")

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
        return list(self.run_ssacfg_region(region, tuple(args)))

    def runtime_call(self, name: str, op: Operation, args: list[int], kinds: str
                     ) -> int | None:
        """`name(args)` on the runtime: its external function in `RuntimeCalls`;
        a call the runtime does not have, or with other argument kinds, is
        not modelled."""
        if name not in SIMULATED or kinds not in SIGNATURES[name]:
            raise Unsupported(str(unknown_call(name, kinds)))
        self.calls.kinds = kinds
        values = self.call_external(name, op, tuple(args))
        return values[0] if values else None

    def v(self, value: IRValue) -> Any:
        return self.env[value]

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

    def set(self, op: IROp, *values: Any) -> None:
        for r, value in zip(op.results, values, strict=False):
            self.env[r] = value

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

    def slot(self, addr: int, n: int) -> int | None:
        """The offset of [addr, addr + n) in the stack, None if not in it."""
        off = addr - STACK_BASE
        if 0 <= off and off + n <= len(self.stack):
            return off
        if 0 <= off < STACK_LIMIT:
            raise Unsupported(f"an access past the stack slots at {addr:#x}")
        return None

    def read_bytes(self, op: Operation, addr: int, n: int) -> bytes | None:
        """n bytes at addr, from a stack slot or the runtime (None: refused)."""
        off = self.slot(addr, n)
        if off is not None:
            return bytes(self.stack[off:off + n])
        self.rt.set_location(op_loc(op))
        return self.rt.host_read(addr, n)

    def memref_address(self, mref: SSAValue, desc: Any, idx: Sequence[Any]) -> int:
        """The address of element `idx` of memref value `mref` (descriptor `desc`)."""
        if not isinstance(desc, Agg):
            raise Unsupported("memref access on a value that is no descriptor")
        elem = fast_ir.memref_element(mref.type) if isinstance(mref.type, str) \
            else getattr(mref.type, "element_type", None)
        if elem is None:
            raise Unsupported(f"memref access on {mref.type}")
        linear = desc.int_at((2,))
        for d, i in enumerate(idx):
            linear += int(i) * desc.int_at((4, d))
        return desc.int_at((1,)) + linear * layout(elem)[0]


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
    except (Unsupported, KernelUnsupported, StepLimit) as e:
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
