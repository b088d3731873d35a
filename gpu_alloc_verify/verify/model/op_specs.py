"""One table of the op kinds the harness knows: what each is, in one place.

Every op kind of the program model (`verify.model.program.OP_KINDS`) has one
`OpSpec`, and so has each gpu op of a user's file that some consumer reads
or runs but the model lacks (`gpu.launch`, `gpu.host_register`, ...).  The
name lists the consumers test against (the ops gpu-to-llvm turns into runtime
calls, the leftovers of a lowering, the generator's kinds, ...) are views of
this table, never lists kept by hand; `tests/model/test_op_table.py` checks every
consumer's dispatch table against it and names the consumer that misses one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpu_alloc_verify.verify.model import program as prog


@dataclass(frozen=True)
class OpSpec:
    """One op kind.

    `kind`: its key (the source facts' kind of the gpu ops).  `mlir`: the op's
    MLIR name.  `model`: its class in `verify.model.program`, None where the
    model has none.  `is_async`: it may return a `!gpu.async.token`.
    `operands`: its operand roles, in order.  `runtime`: the mgpu* runtime
    functions (`runtime_table.json`) its lowering calls.  `feature`: the stem
    of its feature tags (`generators.features`).  `gen_kind`: the generator
    kind that draws it (`GenConfig.kinds`), None where it is drawn only as
    part of another.  `call_pattern`: upstream gpu-to-llvm's runtime-call
    patterns convert it (and so the xDSL re-creations).  `leftover`: found in
    a lowered module it is unconverted (`lowering-complete`).  `inert`: no
    stream, event or buffer effect a checker or a run observes.  `in_kernels`:
    it also occurs in a kernel body (`oracles.kernel_interp`).  `words`: how
    reports name it, where not by its MLIR name.  `text_only`: the model
    prints it, but the in-process consumers (light reader, xDSL builder,
    source interpreter, reader of a user's file) do not build it: a program
    holding it is judged from its text (`program.in_process_gap`).
    """

    kind: str
    mlir: str
    model: type | None = None
    is_async: bool = False
    operands: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()
    feature: str | None = None
    gen_kind: str | None = None
    call_pattern: bool = False
    leftover: bool = False
    inert: bool = False
    in_kernels: bool = False
    words: str | None = None
    text_only: bool = False

    @property
    def dialect(self) -> str:
        return self.mlir.split(".", 1)[0]


_DEPS = "async_dependencies"
_STREAM_CALLS = ("mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuStreamDestroy",
                 "mgpuEventCreate", "mgpuEventRecord", "mgpuStreamWaitEvent", "mgpuEventDestroy")

# In the order the generator draws them (its first kind is its shrink target)
# and the reader's "supported" message lists them.
SPECS: tuple[OpSpec, ...] = (
    OpSpec("wait", "gpu.wait", prog.Wait, True, (_DEPS,), _STREAM_CALLS, "wait", "wait",
           call_pattern=True, leftover=True),
    OpSpec("alloc", "gpu.alloc", prog.Alloc, True, (_DEPS, "dynamic_sizes"),
           ("mgpuMemAlloc",), "alloc", "alloc", call_pattern=True, leftover=True),
    OpSpec("dealloc", "gpu.dealloc", prog.Dealloc, True, (_DEPS, "memref"), ("mgpuMemFree",),
           "dealloc", "dealloc", call_pattern=True, leftover=True),
    OpSpec("memset", "gpu.memset", prog.Memset, True, (_DEPS, "dst", "value"),
           ("mgpuMemset32", "mgpuMemset16"), "memset", "memset", call_pattern=True,
           leftover=True),
    OpSpec("memcpy", "gpu.memcpy", prog.Memcpy, True, (_DEPS, "dst", "src"), ("mgpuMemcpy",),
           "memcpy", "memcpy", call_pattern=True, leftover=True),
    OpSpec("launch", "gpu.launch_func", prog.Launch, True,
           (_DEPS, "grid", "block", "kernel_operands"),
           ("mgpuModuleLoad", "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuModuleUnload"),
           "launch", "launch", leftover=True),
    OpSpec("host.alloc", "memref.alloc", prog.HostAlloc, operands=("dynamic_sizes",),
           feature="host.alloc"),
    OpSpec("host.dealloc", "memref.dealloc", prog.HostDealloc, operands=("memref",),
           feature="host.dealloc"),
    OpSpec("host.load", "memref.load", prog.HostLoad, operands=("memref", "indices"),
           feature="host.load", gen_kind="host", in_kernels=True, words="host read"),
    OpSpec("host.store", "memref.store", prog.HostStore,
           operands=("value", "memref", "indices"), feature="host.store", gen_kind="host",
           in_kernels=True, words="host write"),
    OpSpec("dim", "memref.dim", prog.Dim, operands=("memref", "index"), feature="memref.dim",
           in_kernels=True),
    OpSpec("if", "scf.if", prog.If, operands=("condition",), feature="scf.if", gen_kind="if",
           in_kernels=True),
    OpSpec("for", "scf.for", prog.For, operands=("lower", "upper", "step", "iter_args"),
           feature="scf.for", gen_kind="for", in_kernels=True),
    # Host code upstream pipelines see (issue 40): the model prints these,
    # and a program holding one is judged from its text (`text_only`).
    OpSpec("view", "memref.subview", prog.View, operands=("source", "offsets", "sizes",
                                                           "strides"),
           feature="memref.view", gen_kind="view", text_only=True, words="memref view"),
    OpSpec("execute", "async.execute", prog.Execute,
           operands=("dependencies", "body_operands"), feature="async.execute",
           gen_kind="execute", text_only=True),
    OpSpec("await", "async.await", prog.Await, operands=("operand",), feature="async.await",
           text_only=True),
    OpSpec("call", "func.call", prog.Call, operands=("callee_operands",), feature="func.call",
           gen_kind="call", text_only=True),
    # gpu ops of users' files, which the generator also draws (text only).
    OpSpec("gpu.launch", "gpu.launch", prog.GpuLaunch, is_async=True,
           operands=(_DEPS, "grid", "block", "dynamic_shared_memory"), feature="gpu.launch",
           gen_kind="gpu.launch", leftover=True, text_only=True),
    OpSpec("host_register", "gpu.host_register", prog.HostRegister, operands=("memref",),
           runtime=("mgpuMemHostRegisterMemRef",), feature="gpu.host_register",
           gen_kind="host_register", leftover=True, inert=True, text_only=True),
    OpSpec("host_unregister", "gpu.host_unregister", operands=("memref",),
           runtime=("mgpuMemHostUnregisterMemRef",), leftover=True, inert=True),
    OpSpec("set_default_device", "gpu.set_default_device", prog.SetDevice,
           operands=("device",), runtime=("mgpuSetDefaultDevice",),
           feature="gpu.set_default_device", gen_kind="set_default_device", inert=True,
           text_only=True),
    # Parts of the model's ops in other forms (`View.kind`, `If.form`,
    # `For.form`, `Execute`'s terminator), no kind of their own.
    OpSpec("memref.cast", "memref.cast", operands=("source",)),
    OpSpec("memref.reinterpret_cast", "memref.reinterpret_cast",
           operands=("source", "offsets", "sizes", "strides")),
    OpSpec("memref.collapse_shape", "memref.collapse_shape", operands=("src",)),
    OpSpec("async.yield", "async.yield", operands=("operands",)),
    OpSpec("while", "scf.while", operands=("inits",)),
    OpSpec("cf.br", "cf.br", operands=("dest_operands",)),
    OpSpec("cf.cond_br", "cf.cond_br",
           operands=("condition", "true_dest_operands", "false_dest_operands")),
)


def names(keep: Callable[[OpSpec], bool]) -> tuple[str, ...]:
    """The MLIR names of the specs `keep` selects, in table order."""
    return tuple(s.mlir for s in SPECS if keep(s))


BY_KIND: dict[str, OpSpec] = {s.kind: s for s in SPECS}
BY_MLIR_NAME: dict[str, OpSpec] = {s.mlir: s for s in SPECS}
BY_CLASS: dict[type, OpSpec] = {s.model: s for s in SPECS if s.model is not None}
MODEL_SPECS: tuple[OpSpec, ...] = tuple(s for s in SPECS if s.model is not None)
# The model's kinds the in-process consumers build (not `text_only`).
IN_PROCESS_SPECS: tuple[OpSpec, ...] = tuple(s for s in MODEL_SPECS if not s.text_only)
ALL_OP_NAMES: frozenset[str] = frozenset(BY_MLIR_NAME)

# The gpu ops the model holds (source facts' `GPU_KINDS`: ops on streams).
GPU_MODEL_KINDS: tuple[str, ...] = tuple(s.kind for s in IN_PROCESS_SPECS
                                         if s.dialect == "gpu")
# What upstream gpu-to-llvm's runtime-call patterns convert, and nothing else.
CALL_PATTERN_OPS: tuple[str, ...] = names(lambda s: s.call_pattern)
# Gpu ops that, left in a lowered module, are unconverted.
LEFTOVER_OPS: frozenset[str] = frozenset(names(lambda s: s.leftover))
# Gpu ops with no effect a checker or a run observes.
INERT_OPS: frozenset[str] = frozenset(names(lambda s: s.inert))
# Every gpu op of the table, and the ones a user's source reader orders.
GPU_OPS: tuple[str, ...] = names(lambda s: s.dialect == "gpu")
ORDERED_GPU_OPS: tuple[str, ...] = names(lambda s: s.dialect == "gpu" and not s.inert)
KERNEL_BODY_OPS: tuple[str, ...] = names(lambda s: s.in_kernels)
# The generator's kinds, in drawing order (`generators.core.OP_KINDS`).
GEN_KINDS: tuple[str, ...] = tuple(dict.fromkeys(s.gen_kind for s in SPECS if s.gen_kind))
# The kinds a program judged in process is drawn from (`GenConfig()`'s).
IN_PROCESS_GEN_KINDS: tuple[str, ...] = tuple(dict.fromkeys(
    s.gen_kind for s in SPECS if s.gen_kind and not s.text_only))
# Feature-tag stems of the async model ops (`<stem>.sync`, `<stem>.deps=N`).
ASYNC_FEATURES: dict[type, str] = {s.model: s.feature for s in IN_PROCESS_SPECS
                                   if s.is_async and s.feature is not None
                                   and s.model is not None}


def supported_text() -> str:
    """The model's ops as the source reader lists them: gpu ops by name,
    memref ops as one group, then the others."""
    gpu = [s.mlir for s in IN_PROCESS_SPECS if s.dialect == "gpu"]
    memref = [s.mlir.split(".", 1)[1] for s in IN_PROCESS_SPECS if s.dialect == "memref"]
    other = [s.mlir for s in IN_PROCESS_SPECS if s.dialect not in ("gpu", "memref")]
    return ", ".join([*gpu, "memref." + "/".join(memref), *other])


def words(mlir_name: str) -> str:
    """How reports name an op: its spec's words, else its MLIR name."""
    spec = BY_MLIR_NAME.get(mlir_name)
    return spec.words if spec is not None and spec.words else mlir_name


__all__ = ["ALL_OP_NAMES", "ASYNC_FEATURES", "BY_CLASS", "BY_KIND", "BY_MLIR_NAME",
           "CALL_PATTERN_OPS", "GEN_KINDS", "GPU_MODEL_KINDS", "GPU_OPS", "INERT_OPS",
           "IN_PROCESS_GEN_KINDS", "IN_PROCESS_SPECS", "KERNEL_BODY_OPS", "LEFTOVER_OPS",
           "MODEL_SPECS", "ORDERED_GPU_OPS", "SPECS",
           "OpSpec", "names", "supported_text", "words"]
