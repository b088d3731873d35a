"""One function of a source module, run on xDSL's interpreter over a runtime."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import prod
from typing import Any, Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.interpreters.affine import AffineFunctions
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, Kernel, KernelUnsupported, MemRefView
from gpu_alloc_verify.oracles.kernel_interp import encode_element, load_kernel
from gpu_alloc_verify.oracles.runtime import Outcome, Runtime
from gpu_alloc_verify.oracles.source_interp import row_major_strides
from gpu_alloc_verify.oracles.source_xdsl.affine_ops import AffineMemFunctions
from gpu_alloc_verify.oracles.source_xdsl.arith_extra import ArithExtraFunctions
from gpu_alloc_verify.oracles.source_xdsl.fast_int import FastIntFunctions
from gpu_alloc_verify.oracles.source_xdsl.gpu_ops import gpu_functions, kernel_symbol, launch_key
from gpu_alloc_verify.oracles.source_xdsl.host_ops import MODELLED, HostFunctions
from gpu_alloc_verify.oracles.source_xdsl.reader import parse_source
from gpu_alloc_verify.oracles.source_xdsl.scf_unsigned import UnsignedForFunctions
from gpu_alloc_verify.oracles.source_xdsl.state import MAX_BYTES, State, attach
from gpu_alloc_verify.oracles.source_xdsl.values import INDEX_BITS, TooLarge, Unmodelled, scalar
from gpu_alloc_verify.oracles.source_xdsl.vector_ops import vector_functions
from gpu_alloc_verify.oracles.source_xdsl.view_ops import ViewFunctions
from gpu_alloc_verify.verify.ir import parse as mlir
from gpu_alloc_verify.verify.ir.attrs import attr_of
from gpu_alloc_verify.verify.ir.locations import source_key
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.model import budget
from gpu_alloc_verify.verify.model.harness_defects import record

STEP_LIMIT = 200_000  # ops interpreted per run: past it the input is skipped
# CPU seconds per run: kernels launched in a loop cost far more than their one
# step each, and a time-stepping loop given a large count would hold
# `check` for minutes.
TIME_LIMIT_S = 3.0
Status = Literal["ok", "unknown", "skipped"]


@dataclass
class XRun:
    """A source run: its outcome, or why there is none (unknown: the module
    uses what is not modelled; skipped: this input is past a budget)."""

    status: Status
    outcome: Outcome | None = None
    unawaited: list[str] = field(default_factory=list)
    prints: list[str] = field(default_factory=list)
    returned: list[Any] = field(default_factory=list)
    reason: str = ""


class _Steps(Interpreter.Listener):
    def __init__(self, st: State) -> None:
        self.st = st
        self.count = 0
        self.last = ""  # the op about to run: names one without an implementation
        # CPU seconds of this process, not wall time: on a shared machine an
        # input must not be skipped (its verdict weaker) for waiting on a core.
        self.deadline = time.process_time() + TIME_LIMIT_S

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self.count += 1
        self.st.current = op  # an external call's reads belong to the call, not the callee
        self.last = str(getattr(getattr(op, "op_name", None), "data", op.name))
        if self.count > STEP_LIMIT:
            raise TooLarge(f"more than {STEP_LIMIT} ops interpreted")
        if self.count % 64 == 0:
            if time.process_time() > self.deadline:
                raise TooLarge(f"more than {TIME_LIMIT_S:g} s interpreting")
            budget.check_time("the source interpreter")


@lru_cache(maxsize=32)
def parse(text: str) -> ModuleOp:
    """Source text (generic form, as `verify.source.text` prints it) in xDSL's
    classes, which the interpreter runs (read as xDSL reads it, repeated
    signatures once: `reader`)."""
    try:
        module: ModuleOp = parse_source(text)
    except mlir.NotParsed as e:
        raise e.error from None  # xDSL's own error, as `check` reports it
    return module


def functions(module: ModuleOp) -> list[func.FuncOp]:
    """The module's functions with a body: what a caller can run."""
    return [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def unmodelled_externals(module: ModuleOp) -> list[str]:
    """External functions the module calls that are not modelled."""
    declared = {op.sym_name.data for op in module.ops
                if isinstance(op, func.FuncOp) and not op.body.blocks}
    called = {op.callee.root_reference.data for op in module.walk()
              if isinstance(op, func.CallOp)}
    return sorted((declared & called) - MODELLED)


def kernels_of(text: str, module: ModuleOp) -> dict[str, Kernel]:
    """The kernel each launch names, by function name, loaded from its own
    `gpu.func`, and each un-outlined `gpu.launch`'s, by `launch_key`
    (raises KernelUnsupported naming what is not modelled)."""
    from gpu_alloc_verify.oracles.source_xdsl.launch import launch_kernel

    out: dict[str, Kernel] = {}
    for op in module.walk():
        if op_name(op) == "gpu.launch":
            where = source_key(getattr(op, "location", None)) or "?"
            parent = op.parent_op()
            while parent is not None and not isinstance(parent, func.FuncOp):
                parent = parent.parent_op()
            name = f"{parent.sym_name.data if parent else 'launch'}_kernel"
            try:
                out[launch_key(op)] = launch_kernel(op, name)[0]
            except KernelUnsupported as e:
                raise KernelUnsupported(f"the gpu.launch at {where}: {e}") from e
        if op_name(op) == "gpu.launch_func":
            name = kernel_symbol(op)
            if name not in out:
                full = str(attr_of(op, "kernel")).replace("@", "").replace('"', "")
                try:
                    out[name] = load_kernel(text, full)
                except ValueError as e:
                    raise KernelUnsupported(f"kernel @{full}: {e}") from e
    return out


def launch_sites(module: ModuleOp) -> dict[str, str]:
    """Each un-outlined launch's location key -> its `launch_key`: the
    lowered `gpu.launch_func` outlining made of it carries the same location."""
    out: dict[str, str] = {}
    for op in module.walk():
        if op_name(op) == "gpu.launch":
            key = source_key(getattr(op, "location", None))
            if key is not None:
                out[key] = launch_key(op)
    return out


def bind(fn: func.FuncOp, inputs: Mapping[int, int | float], rt: Runtime,
         size: int) -> list[MemRefView | None]:
    """The buffers `fn` takes, made as its caller would: managed memory
    labelled by the argument ("%arg0"), element k holding k + 1, each dynamic
    dimension `size`."""
    out: list[MemRefView | None] = []
    for k, t in enumerate(fn.function_type.inputs.data):
        if not isinstance(t, MemRefType):
            out.append(None)
            continue
        from gpu_alloc_verify.oracles.source_xdsl.values import elem_of

        elem = elem_of(t)
        sizes = tuple(size if d < 0 else d for d in t.get_shape())
        n = prod(sizes)
        if n * ELEM_BYTES[elem] > MAX_BYTES:  # made element by element below
            raise TooLarge(f"argument %arg{k} is {n * ELEM_BYTES[elem]} bytes, more than "
                           f"the {MAX_BYTES >> 20} MiB a run may make")
        rt.set_location(f"%arg{k}")
        ptr = rt.host_alloc(n * ELEM_BYTES[elem], "managed")
        rt.initialize(ptr, b"".join(encode_element(i + 1, elem) for i in range(n)))
        out.append(MemRefView(ptr, 0, sizes, row_major_strides(sizes), elem))
    rt.set_location(None)
    return out


def argument_kind(t: Attribute) -> str:
    """"i1", "int", "float" or "memref"; Unmodelled for another type."""
    if isinstance(t, IntegerType):
        return "i1" if t.width.data == 1 else "int"
    if isinstance(t, IndexType):
        return "int"
    if isinstance(t, MemRefType):
        return "memref"
    if str(t) in ("f16", "bf16", "f32", "f64"):
        return "float"
    raise Unmodelled(f"an argument of type {t}")


def run(module: ModuleOp, fn: func.FuncOp, scalars: Mapping[int, int | float],
        buffers: Sequence[MemRefView | None], rt: Runtime,
        kernels: Mapping[str, Kernel]) -> XRun:
    """`fn` with `scalars` (by argument position) and the bound `buffers`."""
    st = State(rt, kernels)
    steps = _Steps(st)
    interp = Interpreter(module, index_bitwidth=INDEX_BITS, listeners=(steps,))
    for impls in (ArithFunctions(), ArithExtraFunctions(), AffineFunctions(), MathFunctions(),
                  BuiltinFunctions(), CfFunctions(), FuncFunctions(), ScfFunctions(),
                  HostFunctions(), ViewFunctions(), gpu_functions(), vector_functions()):
        interp.register_implementations(impls)
    interp.register_implementations(AffineMemFunctions(), override=True)  # runtime memory
    interp.register_implementations(UnsignedForFunctions(), override=True)  # scf.for unsigned
    interp.register_implementations(FastIntFunctions(), override=True)  # xDSL's, cheaper
    attach(interp, st)
    args = [buffers[k] if buffers[k] is not None else scalar(scalars[k], t)
            for k, t in enumerate(fn.function_type.inputs.data)]
    try:
        returned = interp.call_op(fn, tuple(args))
        unawaited = st.finish()
        outcome = rt.outcome()  # queued kernels run here at the latest
    except Exception as e:  # noqa: BLE001 - every failure is a verdict input
        return failed(e, steps.last, st.current)
    return XRun("ok", outcome, unawaited, st.prints, list(returned))


def failed(e: BaseException, last_op: str, current: Operation | None = None) -> XRun:
    """Why a run ended early: the first known cause in the exception's chain;
    any other exception is a harness defect (recorded), its reason in words."""
    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, budget.OutOfTime):
            return XRun("unknown", reason=str(seen))
        if isinstance(seen, TooLarge | budget.TooLargeToSimulate):
            return XRun("skipped", reason=str(seen))
        if isinstance(seen, Unmodelled | KernelUnsupported):
            return XRun("unknown", reason=str(seen))
        if isinstance(seen, InterpretationError):
            msg = str(seen).split("\n")[0]
            for marker, what in (("interpretation function for op ", "op"),
                                 ("external function implementation named ", "external call")):
                if marker in msg:
                    name = msg.split(marker, 1)[1].strip()
                    name = last_op if name == "builtin.unregistered" else name
                    return XRun("unknown", reason=f"{what} {name} is not modelled")
            return XRun("unknown", reason=f"xDSL's interpreter: {msg}")
        seen = seen.__cause__ or seen.__context__
    where = source_key(getattr(current, "location", None)) or "?"
    return XRun("unknown", reason=record("the source interpreter", last_op, where, e))
