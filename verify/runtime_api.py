"""The mgpu runtime API as the checkers see it: what each argument is, and
what each runtime wrapper (CUDA, HIP, SYCL) does with it.

Roles: "stream", "event", "ptr" (a buffer), "size", "flag" (host_shared i8),
"value".  A signature is chosen by callee and arity, since the split API
proposed in the seed's review reuses the name `mgpuMemAlloc` with two args.
"""

from __future__ import annotations

from dataclasses import dataclass

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
}

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
    return sig is not None and callee.startswith("mgpuMem")


def host_synchronous(callee: str, arity: int, null_stream: bool) -> bool:
    """Does the wrapper finish this work before returning to the host?

    Every upstream wrapper allocates synchronously whatever the stream; a
    free on the null stream is the synchronous form.  Copies and memsets are
    stream-ordered, on the null stream too (CUDA's default stream is
    asynchronous to the host)."""
    if callee == "mgpuMemAlloc" or (callee == "mgpuMemFree" and (null_stream or arity == 1)):
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
