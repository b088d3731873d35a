"""What each runtime wrapper function does: the hand-kept half of the runtime table.

The C signatures come from upstream (`runtime_table.json`, read by
`scripts/read_runtime_wrappers.py`); the effects below come from reading each
function's body in those same sources.  Keyed by function name: where
platforms differ, the entry follows CUDA's wrapper and `note` says how the
others differ.  A function the table lists must have an entry here (a test
checks), so a new upstream export is annotated before the checkers see it.

Roles of arguments: "stream", "event", "ptr" (a buffer), "size", "flag"
(host_shared), "value", "handle" (an opaque non-stream handle: a cuSPARSE
environment or descriptor).  A role comes from the C type (`role_of`) unless
`Effect.roles` names the parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gpu_alloc_verify.verify.model.runtime_table import Function, Param, c_kind

STREAM_TYPES = frozenset({"CUstream", "hipStream_t", "sycl::queue *", "StreamWrapper *"})
EVENT_TYPES = frozenset({"CUevent", "hipEvent_t", "ze_event_handle_t"})
# Integers that count or measure; other integers (patterns, device numbers,
# data-type enums) are values.
_SIZE_TYPES = frozenset({"size_t", "intptr_t", "uint64_t", "int64_t"})


@dataclass(frozen=True)
class Effect:
    roles: Mapping[str, str] = field(default_factory=dict)  # param name -> role
    creates: str | None = None  # "stream" | "event" | "buffer" | "handle"
    destroys: str | None = None
    # "always": returns only when done (for a synchronize: when what it
    # waits for is done); "null-stream": only when given the null stream.
    host_sync: str = "never"
    # Memory or kernel work the schedule models: on its stream, or at once
    # on the host (host_sync).
    work: bool = False
    launch: bool = False  # a kernel launch
    # How it orders work without being work (`verify.invariants.schedule`):
    # "record" (its event completes after its stream's earlier work),
    # "wait-event" (its stream's later work waits for the event),
    # "sync-event" / "sync-stream" (the host waits for the event / stream).
    orders: str = ""
    # Work done whatever its stream argument is (read by nothing, or the
    # wrapper frees at once): a destroyed stream does not stop it.
    ignores_stream: bool = False
    note: str = ""


def _roles(role: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), role)


def _sparse(handles: str, ptrs: str = "", creates: str | None = None,
            destroys: str | None = None, host_sync: str = "never") -> Effect:
    """A cuSPARSE(Lt) wrapper: `handles` name descriptor parameters, `ptrs`
    buffers.  Its stream parameter is commented out upstream: the work runs
    on the library handle's stream (the null stream), not on its argument."""
    return Effect(roles={**_roles("handle", handles), **_roles("ptr", ptrs)},
                  creates=creates, destroys=destroys, host_sync=host_sync)


_MEMSET = Effect(roles={"dst": "ptr", "value": "value"}, work=True)
_LAUNCH = Effect(roles={"smem": "size"}, work=True, launch=True)
_HOST = Effect(host_sync="always")

EFFECTS: dict[str, Effect] = {
    "mgpuStreamCreate": Effect(creates="stream"),
    "mgpuStreamDestroy": Effect(destroys="stream"),
    "mgpuStreamSynchronize": Effect(host_sync="always", orders="sync-stream"),
    "mgpuStreamWaitEvent": Effect(
        orders="wait-event", note="Level Zero's waits on the host (stream->sync(event))"),
    "mgpuEventCreate": Effect(creates="event"),
    "mgpuEventDestroy": Effect(destroys="event"),
    "mgpuEventSynchronize": Effect(host_sync="always", orders="sync-event"),
    "mgpuEventRecord": Effect(
        orders="record",
        note="Level Zero's signals on its global command lists, not on the stream"),
    # Every wrapper allocates at once whatever the stream.
    "mgpuMemAlloc": Effect(creates="buffer", host_sync="always", work=True, ignores_stream=True,
                           note="HIP ignores isHostShared; SYCL always allocates shared"),
    # CUDA's and HIP's free at once (cuMemFree) ignoring the stream; the model
    # takes a free on a stream as stream-ordered, on the null stream as
    # synchronous.  SYCL and Level Zero dereference the stream.
    "mgpuMemFree": Effect(roles={"ptr": "ptr"}, destroys="buffer", host_sync="null-stream",
                          work=True, ignores_stream=True),
    "mgpuMemcpy": Effect(roles=_roles("ptr", "dst src"), work=True),
    "mgpuMemset32": _MEMSET,
    "mgpuMemset16": _MEMSET,
    "mgpuMemHostRegister": _HOST,
    "mgpuMemHostRegisterMemRef": _HOST,
    "mgpuMemHostUnregister": _HOST,
    "mgpuMemHostUnregisterMemRef": _HOST,
    "mgpuMemGetDeviceMemRef1dFloat": _HOST,
    "mgpuMemGetDeviceMemRef1dInt32": _HOST,
    # Loading a module synchronizes the context.
    "mgpuModuleLoad": _HOST,
    "mgpuModuleLoadJIT": _HOST,
    "mgpuModuleUnload": _HOST,
    "mgpuModuleGetFunction": Effect(),
    "mgpuLaunchKernel": _LAUNCH,
    "mgpuLaunchClusterKernel": _LAUNCH,
    "mgpuLaunchKernelRT": _LAUNCH,
    "mgpuSetDefaultDevice": Effect(note="selects the device later contexts use"),
    # Builds a TMA descriptor, copies it to a device buffer it allocates.
    "mgpuTensorMapEncodeTiled": _HOST,
    "mgpuTensorMapEncodeTiledMemref": _HOST,
    # cuSPARSE: one environment per process, created and destroyed by these.
    # Creating a descriptor is host work only: done when it returns.
    "mgpuCreateSparseEnv": Effect(creates="handle", host_sync="always"),
    "mgpuDestroySparseEnv": Effect(destroys="handle"),
    "mgpuCreateDnVec": _sparse("", "values", creates="handle", host_sync="always"),
    "mgpuDestroyDnVec": _sparse("v", destroys="handle"),
    "mgpuCreateDnMat": _sparse("", "values", creates="handle", host_sync="always"),
    "mgpuDestroyDnMat": _sparse("m", destroys="handle"),
    "mgpuCreateCoo": _sparse("", "rowIdxs colIdxs values", creates="handle", host_sync="always"),
    "mgpuCreateCooAoS": _sparse("", "idxs values", creates="handle", host_sync="always"),
    "mgpuCreateCsr": _sparse("", "rowPos colIdxs values", creates="handle", host_sync="always"),
    "mgpuCreateCsc": _sparse("", "colPos rowIdxs values", creates="handle", host_sync="always"),
    "mgpuCreateBsr": _sparse("", "rowPos colIdxs values", creates="handle", host_sync="always"),
    "mgpuDestroySpMat": _sparse("m", destroys="handle"),
    # *BufferSize: the size comes back to the host.
    "mgpuSpMVBufferSize": _sparse("a x y", host_sync="always"),
    "mgpuSpMV": _sparse("a x y", "buf"),
    "mgpuSpMMBufferSize": _sparse("a b c", host_sync="always"),
    "mgpuSpMM": _sparse("a b c", "buf"),
    "mgpuSDDMMBufferSize": _sparse("a b c", host_sync="always"),
    "mgpuSDDMM": _sparse("a b c", "buf"),
    "mgpuSpGEMMCreateDescr": _sparse("", creates="handle", host_sync="always"),
    "mgpuSpGEMMDestroyDescr": _sparse("s", destroys="handle"),
    "mgpuSpGEMMWorkEstimation": _sparse("s a b c", "buf", host_sync="always"),
    "mgpuSpGEMMCompute": _sparse("s a b c", "buf2", host_sync="always"),
    "mgpuSpGEMMCopy": _sparse("s a b c"),
    "mgpuSpMatGetSize": _sparse("m", "r c n", host_sync="always"),
    "mgpuSetCsrPointers": _sparse("m", "p c v"),
    "mgpuCreateSparseLtEnv": Effect(creates="handle", host_sync="always"),
    "mgpuDestroySparseLtEnv": Effect(destroys="handle"),
    # cuSPARSELt descriptors live in storage the caller passes (dh, sh).
    "mgpuCreateCuSparseLtDnMat": _sparse("dh", "values", creates="handle", host_sync="always"),
    "mgpuDestroyCuSparseLtDnMat": _sparse("dh", destroys="handle"),
    "mgpuCusparseLtCreate2To4SpMat": _sparse("sh", "values", creates="handle", host_sync="always"),
    "mgpuDestroyCuSparseLtSpMat": _sparse("sh", destroys="handle"),
    # These two do read their stream: pruning and compression run on it (with
    # prune_flag 2 the first also allocates, copies and synchronizes it); the
    # matmul itself runs on the null stream.  Not modelled as work.
    "mgpuCuSparseLtSpMMBufferSize": _sparse("a b c", "bs"),
    "mgpuCuSparseLtSpMM": _sparse("a b c", "d_workspace dA_compressed dA_compressedBuffer"),
    # The split API the seed's review proposed: no upstream wrapper has these.
    "mgpuMemAllocAsync": Effect(creates="buffer", work=True),
    "mgpuMemFreeAsync": Effect(roles={"ptr": "ptr"}, destroys="buffer", work=True),
    "mgpuMemset64": _MEMSET,
}


def _fn(name: str, *params: tuple[str, str]) -> Function:
    return Function(name, "void", tuple(Param(t, n) for t, n in params))


# The split API proposed in the seed's review (not upstream): a synchronous
# mgpuMemAlloc(size, host_shared) and mgpuMemFree(ptr), their stream-ordered
# *Async forms, and a 64-bit memset.  C types as the proposal's shim has them.
PROPOSED: tuple[Function, ...] = (
    _fn("mgpuMemAlloc", ("uint64_t", "sizeBytes"), ("bool", "isHostShared")),
    _fn("mgpuMemAllocAsync", ("uint64_t", "sizeBytes"), ("CUstream", "stream"),
        ("bool", "isHostShared")),
    _fn("mgpuMemFree", ("void *", "ptr")),
    _fn("mgpuMemFreeAsync", ("void *", "ptr"), ("CUstream", "stream")),
    _fn("mgpuMemset64", ("void *", "dst"), ("uint64_t", "value"), ("size_t", "count"),
        ("CUstream", "stream")),
)
# Where a proposal's effect differs from the upstream function of its name.
PROPOSED_EFFECTS: dict[tuple[str, int], Effect] = {
    ("mgpuMemFree", 1): Effect(roles={"ptr": "ptr"}, destroys="buffer", host_sync="always",
                               work=True),
}


def effect_of(name: str, arity: int) -> Effect:
    return PROPOSED_EFFECTS.get((name, arity)) or EFFECTS.get(name) or Effect()


def role_of(name: str, param: Param) -> str:
    """The role of `param` of function `name`: the overlay's, else its C type's."""
    given = EFFECTS.get(name, Effect()).roles.get(param.name)
    if given is not None:
        return given
    t = param.type.removeprefix("const ")
    if t in STREAM_TYPES:
        return "stream"
    if t in EVENT_TYPES:
        return "event"
    if t == "bool":
        return "flag"
    if c_kind(t) == "i" and t in _SIZE_TYPES:
        return "size"
    return "value"


def roles_of(fn: Function) -> tuple[str, ...]:
    return tuple(role_of(fn.name, p) for p in fn.params)
