"""The mgpu runtime API as the checkers see it: what each argument is, and
what each runtime wrapper (CUDA, HIP, SYCL) does with it.

Roles: "stream", "event", "ptr" (a buffer), "size", "flag" (host_shared i8),
"value".  A signature is chosen by callee and arity, since the split API
proposed in the seed's review reuses the name `mgpuMemAlloc` with two args.
"""

from __future__ import annotations

from dataclasses import dataclass

LAUNCH = "gpu.launch_func"

SIGNATURES: dict[tuple[str, int], tuple[str, ...]] = {
    ("mgpuStreamCreate", 0): (),
    ("mgpuStreamDestroy", 1): ("stream",),
    ("mgpuStreamSynchronize", 1): ("stream",),
    ("mgpuStreamWaitEvent", 2): ("stream", "event"),
    ("mgpuEventCreate", 0): (),
    ("mgpuEventDestroy", 1): ("event",),
    ("mgpuEventSynchronize", 1): ("event",),
    ("mgpuEventRecord", 2): ("event", "stream"),
    ("mgpuMemAlloc", 3): ("size", "stream", "flag"),
    ("mgpuMemAlloc", 2): ("size", "flag"),  # split API: synchronous
    ("mgpuMemAllocAsync", 3): ("size", "stream", "flag"),  # split API
    ("mgpuMemFree", 2): ("ptr", "stream"),
    ("mgpuMemFree", 1): ("ptr",),  # split API: synchronous
    ("mgpuMemFreeAsync", 2): ("ptr", "stream"),  # split API
    ("mgpuMemcpy", 4): ("ptr", "ptr", "size", "stream"),
    ("mgpuMemset32", 4): ("ptr", "value", "size", "stream"),
    ("mgpuMemset16", 4): ("ptr", "value", "size", "stream"),
    ("mgpuMemset64", 4): ("ptr", "value", "size", "stream"),  # split API
    # A lowered `gpu.launch_func <%stream>` (LLVM translation emits the
    # mgpuLaunchKernel call): kernel work on that stream.  Without a stream
    # operand the launch is synchronous: the translation runs it on a
    # stream of its own and synchronizes before returning.
    (LAUNCH, 1): ("stream",),
    (LAUNCH, 0): (),
    # LLVM 16 lowers a launch itself: load the module, get the function,
    # launch on a stream (with or without the trailing parameter count),
    # unload.  Registering host memory takes no handle.
    ("mgpuModuleLoad", 1): ("value",),
    ("mgpuModuleLoad", 2): ("value", "size"),
    ("mgpuModuleGetFunction", 2): ("value", "value"),
    ("mgpuModuleUnload", 1): ("value",),
    ("mgpuLaunchKernel", 11): ("value", "size", "size", "size", "size", "size", "size", "size",
                               "stream", "value", "value"),
    ("mgpuLaunchKernel", 12): ("value", "size", "size", "size", "size", "size", "size", "size",
                               "stream", "value", "value", "size"),
    ("mgpuMemHostRegisterMemRef", 3): ("size", "value", "size"),
    ("mgpuMemHostUnregisterMemRef", 3): ("size", "value", "size"),
    ("mgpuMemHostRegister", 2): ("value", "size"),
}
# Kernel work on a stream, besides the mgpuMem* calls.
KERNEL_LAUNCHES = (LAUNCH, "mgpuLaunchKernel")

ALLOC_CALLEES = ("mgpuMemAlloc", "mgpuMemAllocAsync")
DESTROYERS = {"mgpuStreamDestroy": "stream", "mgpuEventDestroy": "event"}


def roles(callee: str, arity: int) -> tuple[str, ...] | None:
    return SIGNATURES.get((callee, arity))


def arg_of(callee: str, args: tuple, role: str):  # type: ignore[no-untyped-def]
    """The first argument with `role`, or None."""
    sig = roles(callee, len(args))
    if sig is None or role not in sig:
        return None
    return args[sig.index(role)]


def is_work(callee: str, arity: int) -> bool:
    """A call that puts work on a stream (or runs it on the host at once)."""
    sig = roles(callee, arity)
    return sig is not None and (
        (callee.startswith("mgpuMem") and "Host" not in callee) or callee in KERNEL_LAUNCHES)


def host_synchronous(callee: str, arity: int, null_stream: bool) -> bool:
    """Does the wrapper finish this work before returning to the host?

    Every upstream wrapper allocates synchronously whatever the stream; a
    free on the null stream is the synchronous form.  Copies and memsets are
    stream-ordered, on the null stream too (CUDA's default stream is
    asynchronous to the host)."""
    if callee == "mgpuMemAlloc" or (callee == "mgpuMemFree" and (null_stream or arity == 1)):
        return True
    if callee == LAUNCH and arity == 0:
        return True
    return False


@dataclass(frozen=True)
class RuntimeProfile:
    name: str
    # Callees whose wrapper dereferences the stream: a null stream crashes.
    needs_stream: frozenset[str]
    # Callees whose wrapper ignores the host_shared flag.
    ignores_flag: frozenset[str] = frozenset()
    note: str = ""


PROFILES: dict[str, RuntimeProfile] = {
    "cuda": RuntimeProfile(
        "cuda",
        needs_stream=frozenset(),
        note="CUDA accepts the null (default) stream everywhere but in destroy",
    ),
    "hip": RuntimeProfile(
        "hip",
        needs_stream=frozenset(),
        ignores_flag=frozenset({"mgpuMemAlloc"}),
        note="HIP ignores stream and host_shared flag in mgpuMemAlloc",
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
