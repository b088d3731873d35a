"""The mgpu runtime API as the checkers see it: what each argument is, and
what each runtime wrapper (CUDA, HIP, SYCL) does with it.

Derived from one table: the functions upstream's wrappers export, per LLVM
version and platform (`runtime_table`), and what each does
(`runtime_effects`).  Roles: "stream", "event", "ptr" (a buffer), "size",
"flag" (host_shared i8), "value", "handle" (a cuSPARSE environment or
descriptor).  A signature is chosen by callee and arity, since the split API
proposed in the seed's review reuses the name `mgpuMemAlloc` with two args.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc_verify.verify.model import runtime_table
from gpu_alloc_verify.verify.model.runtime_effects import EFFECTS, PROPOSED, effect_of, roles_of

LAUNCH = "gpu.launch_func"


def _signatures() -> dict[tuple[str, int], tuple[str, ...]]:
    """Roles by (callee, arity): every upstream version and platform, then
    the split API's proposals (LLVM 16's real mgpuMemAlloc(size, stream)
    shares its arity with the proposed (size, flag): the proposal's roles
    are kept, and the extractor gives LLVM 16's call its flag)."""
    out: dict[tuple[str, int], tuple[str, ...]] = {}
    for fn in runtime_table.all_functions():
        key, sig = (fn.name, fn.arity), roles_of(fn)
        if out.setdefault(key, sig) != sig:
            raise ValueError(f"{fn.name}/{fn.arity}: roles {sig} and {out[key]} disagree "
                             "between versions or platforms")
    out.update({(fn.name, fn.arity): roles_of(fn) for fn in PROPOSED})
    # A lowered `gpu.launch_func <%stream>` (LLVM translation emits the
    # mgpuLaunchKernel call): kernel work on that stream.  Without a stream
    # operand the launch is synchronous: the translation runs it on a
    # stream of its own and synchronizes before returning.
    out[(LAUNCH, 1)] = ("stream",)
    out[(LAUNCH, 0)] = ()
    return out


SIGNATURES: dict[tuple[str, int], tuple[str, ...]] = _signatures()
# The split API (seed review): checked by the same roles, real nowhere.
PROPOSED_SIGNATURES = frozenset((fn.name, fn.arity) for fn in PROPOSED)
# Kernel work on a stream, besides the mgpuMem* calls.
KERNEL_LAUNCHES = (LAUNCH, *sorted(n for n, e in EFFECTS.items() if e.launch))

ALLOC_CALLEES = tuple(sorted(n for n, e in EFFECTS.items() if e.creates == "buffer"))
DESTROYERS = {n: e.destroys for n, e in EFFECTS.items() if e.destroys in ("stream", "event")}


def roles(callee: str, arity: int) -> tuple[str, ...] | None:
    return SIGNATURES.get((callee, arity))


def arg_of(callee: str, args: tuple, role: str):  # type: ignore[no-untyped-def]
    """The first argument with `role`, or None."""
    sig = roles(callee, len(args))
    if sig is None or role not in sig:
        return None
    return args[sig.index(role)]


def is_real(callee: str, arity: int, version: int, platform: str) -> bool:
    """Does `platform`'s upstream wrapper (a runtime name works: "hip") at
    LLVM `version` export `callee` with `arity` parameters?"""
    return any(fn.name == callee and fn.arity == arity
               for fn in runtime_table.exported(version, platform))


def real_roles(callee: str, arity: int, version: int,
               platform: str) -> tuple[str, ...] | None:
    """The roles of the upstream function itself (None where not exported),
    whatever proposal shares its name and arity."""
    for fn in runtime_table.exported(version, platform):
        if fn.name == callee and fn.arity == arity:
            return roles_of(fn)
    return None


def knows(runtime: str, callee: str, arity: int, version: int | None = None) -> bool:
    """Is `callee(arity args)` a call `runtime`'s wrapper accepts: one it
    exports at LLVM `version` (`runtime_table.versions_for`: any version of
    the table where None or not read), a split-API proposal, or a lowered
    launch?"""
    if callee == LAUNCH:
        return (callee, arity) in SIGNATURES
    return (callee, arity) in PROPOSED_SIGNATURES or any(
        is_real(callee, arity, v, runtime) for v in runtime_table.versions_for(version))


def is_work(callee: str, arity: int) -> bool:
    """A call that puts work on a stream (or runs it on the host at once)."""
    return roles(callee, arity) is not None and (
        callee == LAUNCH or effect_of(callee, arity).work)


def order_kind(callee: str, arity: int) -> str:
    """How a call of a known signature orders work without being work
    (`Effect.orders`: "record", "wait-event", "sync-event", "sync-stream"),
    "" for any other call."""
    return effect_of(callee, arity).orders if roles(callee, arity) is not None else ""


def ignores_stream(callee: str) -> bool:
    """Does the wrapper do its work whatever became of its stream?"""
    return callee in EFFECTS and EFFECTS[callee].ignores_stream


def allocates_at_once(callee: str) -> bool:
    """Does the wrapper allocate before returning, ignoring its stream (so
    its token stands for no work queued before it)?"""
    e = EFFECTS.get(callee)
    return e is not None and e.creates == "buffer" and e.host_sync == "always"


def host_synchronous(callee: str, arity: int, null_stream: bool) -> bool:
    """Does the wrapper finish this work before returning to the host?

    Every upstream wrapper allocates synchronously whatever the stream; a
    free on the null stream is the synchronous form.  Copies and memsets are
    stream-ordered, on the null stream too (CUDA's default stream is
    asynchronous to the host)."""
    if callee == LAUNCH:
        return arity == 0
    sync = effect_of(callee, arity).host_sync
    return sync == "always" or (sync == "null-stream" and null_stream)


@dataclass(frozen=True)
class RuntimeProfile:
    name: str
    # Callees whose wrapper dereferences the stream: a null stream crashes.
    needs_stream: frozenset[str]
    # Callees whose wrapper ignores the host_shared flag.
    ignores_flag: frozenset[str] = frozenset()
    note: str = ""
    # Small integers the runtime itself defines as stream handles: valid as
    # the stream of every call but mgpuStreamDestroy, never an event.
    # cuda.h: `#define CU_STREAM_LEGACY ((CUstream)0x1)`, `#define
    # CU_STREAM_PER_THREAD ((CUstream)0x2)`; HIP's hip/hip_runtime_api.h
    # (ROCm HIP): `#define hipStreamPerThread ((hipStream_t)2)`, and no legacy
    # handle.  SYCL's wrappers dereference a `sycl::queue*`: none.
    special_streams: frozenset[int] = frozenset()


PROFILES: dict[str, RuntimeProfile] = {
    "cuda": RuntimeProfile(
        "cuda",
        needs_stream=frozenset(),
        note="CUDA accepts the null (default) stream everywhere but in destroy",
        special_streams=frozenset({1, 2}),  # CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
    ),
    "hip": RuntimeProfile(
        "hip",
        needs_stream=frozenset(),
        ignores_flag=frozenset({"mgpuMemAlloc"}),
        note="HIP ignores stream and host_shared flag in mgpuMemAlloc",
        special_streams=frozenset({2}),  # hipStreamPerThread
    ),
    "sycl": RuntimeProfile(
        "sycl",
        needs_stream=frozenset({
            "mgpuMemFree", "mgpuMemcpy", "mgpuMemset32", "mgpuMemset16",
            "mgpuStreamSynchronize", "mgpuEventRecord", "mgpuStreamWaitEvent",
            "mgpuMemAllocAsync", "mgpuMemFreeAsync",
        }),
        note="SYCL's wrappers dereference the queue (stream) in free, copy, memset, "
        "synchronize; mgpuMemAlloc always allocates shared memory",
    ),
}
