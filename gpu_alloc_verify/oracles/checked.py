"""Handle, pointer and contract checks shared by every concrete runtime.

`CheckedRuntime` implements the `Runtime` protocol once: it validates each
call against the registries of streams, events and allocations it has handed
out and against the profile, records an error for every misuse, and passes
the calls that survive to a backend (`_b_*` methods) that does the work: the
simulator's scheduler or CUDA through CuPy.  So the simulator and the real
GPU find the same misuses with the same words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc_verify.oracles.kernel_api import (
    DeviceMemory,
    Dim3,
    Kernel,
    KernelArg,
    MemRefView,
    view_extent,
)
from gpu_alloc_verify.oracles.runtime import (
    BAD_LAUNCH,
    BAD_SIZE,
    DEVICE_ACCESS_HOST_MEMORY,
    DOUBLE_DESTROY,
    DOUBLE_FREE,
    HOST_ACCESS_DEVICE_MEMORY,
    INVALID_HANDLE,
    INVALID_POINTER,
    NULL_STREAM,
    OUT_OF_BOUNDS,
    USE_AFTER_DESTROY,
    USE_AFTER_FREE,
    AllocationState,
    HostAccess,
    MemoryKind,
    Outcome,
    Profile,
    RuntimeErrorRecord,
    encode_contents,
    get_profile,
    hex_bytes,
)

MAX_ALLOC = 1 << 32


@dataclass
class Handle:
    kind: str  # "stream" or "event"
    label: str
    destroyed: bool = False


@dataclass
class Allocation:
    index: int
    base: int
    size: int
    kind: MemoryKind
    label: str
    freed: bool = False


class CheckedRuntime:
    def __init__(self, profile: str | Profile = "cuda") -> None:
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        self.loc: str | None = None
        self.handles: dict[int, Handle] = {}
        self.allocations: list[Allocation] = []
        self.errors: list[RuntimeErrorRecord] = []
        self.accesses: list[HostAccess] = []
        self._per_loc: Counter[tuple[str, str | None]] = Counter()

    # -- bookkeeping --------------------------------------------------------
    def set_location(self, loc: str | None) -> None:
        self.loc = loc

    def error(self, kind: str, call: str, detail: str, dims: tuple[int, ...] = ()) -> None:
        self.errors.append(RuntimeErrorRecord(kind, call, self.loc, detail, dims))

    def _label(self, what: str) -> str:
        key = (what, self.loc)
        n = self._per_loc[key]
        self._per_loc[key] += 1
        where = self.loc if self.loc is not None else what
        return f"{where}#{n}" if what == "alloc" else f"{what}@{where}#{n}"

    def _new_handle(self, kind: str, value: int) -> int:
        self.handles[value] = Handle(kind, self._label(kind))
        return value

    def is_live(self, value: int) -> bool:
        """A stream or event this runtime made and nothing destroyed yet."""
        h = self.handles.get(value)
        return h is not None and not h.destroyed

    def handle_name(self, value: int) -> str:
        h = self.handles.get(value)
        return h.label if h else f"{value:#x}"

    def check_handle(self, call: str, kind: str, value: int, *, used: bool = True) -> bool:
        """Is `value` a live handle of `kind`?  `used`: the wrapper dereferences it."""
        if value == 0 and kind == "stream":
            if used and not self.profile.null_stream_ok:
                self.error(NULL_STREAM, call, f"{self.profile.name} dereferences the stream")
                return False
            return True
        if kind == "stream" and value in self.profile.special_streams:
            return True  # CU_STREAM_LEGACY and the like: the runtime's own
        h = self.handles.get(value)
        if h is None or h.kind != kind:
            self.error(INVALID_HANDLE, call, f"{value:#x} is no {kind} this runtime created")
            return False
        if h.destroyed:
            self.error(USE_AFTER_DESTROY, call, f"{h.label} was destroyed")
            return not used
        return True

    def find(self, ptr: int) -> Allocation | None:
        """The allocation `ptr` points into (or one past the end of: a zero-size access)."""
        for a in reversed(self.allocations):
            if a.base <= ptr < a.base + a.size:
                return a
        for a in reversed(self.allocations):  # real allocations can be adjacent
            if ptr == a.base + a.size:
                return a
        return None

    def resolve(self, call: str, ptr: int, nbytes: int, *, device: bool = False
                ) -> tuple[Allocation, int] | None:
        """The allocation and offset of an access, or None with the error recorded.

        `device`: a kernel's access as queued work runs it.  Freed is then the
        backend's word (a free that settles the device marks the registry
        first, and the access runs inside that settle), and host memory is
        out of the device's reach."""
        a = self.find(ptr)
        if a is None:
            self.error(INVALID_POINTER, call, f"{ptr:#x} is in no allocation")
            return None
        off = ptr - a.base
        if not device and a.freed:
            self.error(USE_AFTER_FREE, call, f"{a.label} was freed")
            return None
        if nbytes < 0 or off + nbytes > a.size:
            self.error(OUT_OF_BOUNDS, call, f"{a.label}+{off} size {nbytes} > {a.size}")
            return None
        if device and not self._b_usable(a):
            self.error(USE_AFTER_FREE, call, f"{a.label} freed before the kernel ran")
            return None
        if device and a.kind == "host":
            self.error(DEVICE_ACCESS_HOST_MEMORY, call, f"{a.label} is host memory")
            return None
        return a, off

    # -- streams and events -------------------------------------------------
    def stream_create(self) -> int:
        self._tick()
        return self._new_handle("stream", self._b_stream_create())

    def stream_destroy(self, stream: int) -> None:
        self._tick()
        self._destroy("stream_destroy", "stream", stream)

    def _destroy(self, call: str, kind: str, value: int) -> None:
        h = self.handles.get(value)
        if kind == "stream" and value in self.profile.special_streams:
            # cuStreamDestroy refuses the legacy/per-thread stream handles.
            self.error(INVALID_HANDLE, call, f"{value:#x} is the {self.profile.name} runtime's "
                       "own stream, which no one destroys")
        elif h is None or h.kind != kind:
            self.error(INVALID_HANDLE, call, f"{value:#x} is no {kind} this runtime created")
        elif h.destroyed:
            self.error(DOUBLE_DESTROY, call, f"{h.label} destroyed twice")
        else:
            h.destroyed = True
            if kind == "stream":
                self._b_stream_destroy(value)
            else:
                self._b_event_destroy(value)

    def stream_synchronize(self, stream: int) -> None:
        self._tick()
        if self.check_handle("stream_synchronize", "stream", stream):
            self._b_stream_synchronize(stream)

    def stream_wait_event(self, stream: int, event: int) -> None:
        self._tick()
        ok = self.check_handle("stream_wait_event", "stream", stream)
        if self.check_handle("stream_wait_event", "event", event) and ok:
            self._b_stream_wait_event(stream, event)

    def event_create(self) -> int:
        self._tick()
        return self._new_handle("event", self._b_event_create())

    def event_destroy(self, event: int) -> None:
        self._tick()
        self._destroy("event_destroy", "event", event)

    def event_record(self, event: int, stream: int) -> None:
        self._tick()
        ok = self.check_handle("event_record", "stream", stream)
        if self.check_handle("event_record", "event", event) and ok:
            self._b_event_record(event, stream)

    def event_synchronize(self, event: int) -> None:
        self._tick()
        if self.check_handle("event_synchronize", "event", event):
            self._b_event_synchronize(event)

    # -- memory -------------------------------------------------------------
    def _alloc(self, call: str, size: int, stream: int, host_shared: bool) -> int:
        if size < 0 or size >= MAX_ALLOC:
            self.error(BAD_SIZE, call, f"size {size}")
            return 0
        kind = self.profile.memory_kind(host_shared)
        base = self._b_alloc(size, kind, stream)
        if base == 0:
            return 0
        kind = self._b_memory_kind(base, kind)
        self.allocations.append(
            Allocation(len(self.allocations), base, size, kind, self._label("alloc"))
        )
        return base

    def mem_alloc(self, size: int, stream: int, host_shared: bool) -> int:
        self._tick()
        # Every profile ignores the stream here, but a dead handle is still a finding.
        self.check_handle("mem_alloc", "stream", stream, used=False)
        return self._alloc("mem_alloc", size, 0, host_shared)

    def mem_alloc_sync(self, size: int, host_shared: bool) -> int:
        self._tick()
        return self._alloc("mem_alloc_sync", size, 0, host_shared)

    def mem_alloc_async(self, size: int, stream: int, host_shared: bool) -> int:
        self._tick()
        if not self.check_handle("mem_alloc_async", "stream", stream):
            return 0
        return self._alloc("mem_alloc_async", size, stream, host_shared)

    def mem_free(self, ptr: int, stream: int) -> None:
        self._tick()
        used = self.profile.free_uses_stream
        if not self.check_handle("mem_free", "stream", stream, used=used) and used:
            return
        a = self._freeable("mem_free", ptr)
        if a is not None:
            self._b_free(a, stream)

    def mem_free_sync(self, ptr: int) -> None:
        self._tick()
        a = self._freeable("mem_free_sync", ptr)
        if a is not None:
            self._b_free_sync(a)

    def mem_free_async(self, ptr: int, stream: int) -> None:
        self._tick()
        if not self.check_handle("mem_free_async", "stream", stream):
            return
        a = self._freeable("mem_free_async", ptr)
        if a is not None:
            self._b_free_async(a, stream)

    def _freeable(self, call: str, ptr: int) -> Allocation | None:
        """The allocation `ptr` is the base of, marked freed; None for null or a misuse."""
        if ptr == 0:
            return None
        a = self.find(ptr)
        if a is None or a.base != ptr:
            self.error(INVALID_POINTER, call, f"{ptr:#x} is no allocation's base")
            return None
        if a.freed:
            self.error(DOUBLE_FREE, call, f"{a.label} freed twice")
            return None
        a.freed = True
        return a

    def memcpy(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._tick()
        if not self.check_handle("memcpy", "stream", stream):
            return
        d = self.resolve("memcpy", dst, nbytes)
        s = self.resolve("memcpy", src, nbytes)
        if d is not None and s is not None:
            self._b_memcpy(d[0], d[1], s[0], s[1], nbytes, stream)

    def _memset(self, call: str, dst: int, pattern: bytes, count: int, stream: int) -> None:
        self._tick()
        if not self.check_handle(call, "stream", stream):
            return
        r = self.resolve(call, dst, len(pattern) * count)
        if r is not None:
            self._b_memset(r[0], r[1], pattern, count, stream)

    def memset32(self, dst: int, value: int, count: int, stream: int) -> None:
        self._memset("memset32", dst, (value & 0xFFFFFFFF).to_bytes(4, "little"), count, stream)

    def memset16(self, dst: int, value: int, count: int, stream: int) -> None:
        self._memset("memset16", dst, (value & 0xFFFF).to_bytes(2, "little"), count, stream)

    def memset8(self, dst: int, value: int, count: int, stream: int) -> None:
        self._memset("memset8", dst, (value & 0xFF).to_bytes(1, "little"), count, stream)

    def memset64(self, dst: int, value: int, count: int, stream: int) -> None:
        self._memset("memset64", dst, (value & (1 << 64) - 1).to_bytes(8, "little"), count,
                     stream)

    # -- kernels --------------------------------------------------------------
    def launch(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
               stream: int) -> None:
        """Check the stream, the configuration and every buffer argument (the
        whole extent its view spans), then hand the launch to the backend with
        the allocations the kernel reads and writes."""
        self._tick()
        call = f"launch @{kernel.name}"
        if not self.check_handle(call, "stream", stream):
            return
        if min(*grid, *block) <= 0:
            self.error(BAD_LAUNCH, call, f"grid {grid} block {block}", (*grid, *block))
            return
        reads: set[int] = set()
        writes: set[int] = set()
        for index, arg in enumerate(args):
            if not isinstance(arg, MemRefView):
                continue
            found = self._view_target(call, arg)
            if found is None:
                return
            if found < 0:  # an empty view touches nothing
                continue
            if index in kernel.reads:
                reads.add(found)
            if index in kernel.writes:
                writes.add(found)
        self._b_launch(kernel, grid, block, args, stream, frozenset(reads), frozenset(writes))

    def _view_target(self, call: str, view: MemRefView) -> int | None:
        """The allocation index a view lies in, -1 for an empty view, None
        (error recorded) when it lies in none or in host memory."""
        extent = view_extent(view)
        if extent is None:
            return -1
        r = self.resolve(call, view.ptr + extent[0], extent[1] - extent[0])
        if r is None:
            return None
        if r[0].kind == "host":
            self.error(DEVICE_ACCESS_HOST_MEMORY, call, f"{r[0].label} is host memory")
            return None
        return r[0].index

    def device_memory(self, call: str) -> DeviceMemory:
        """Kernel loads and stores, checked; the first refused one is recorded."""
        return _CheckedDeviceMemory(self, call)

    # -- host memory ----------------------------------------------------------
    def host_alloc(self, size: int, kind: MemoryKind = "host") -> int:
        self._tick()
        if size < 0 or size >= MAX_ALLOC:
            self.error(BAD_SIZE, "host_alloc", f"size {size}")
            return 0
        base = self._b_alloc(size, kind, 0)
        if base == 0:
            return 0
        self.allocations.append(
            Allocation(len(self.allocations), base, size, kind, self._label("alloc"))
        )
        return base

    def host_free(self, ptr: int) -> None:
        self._tick()
        a = self._freeable("host_free", ptr)
        if a is not None:
            self._b_host_free(a)

    def initialize(self, ptr: int, data: bytes) -> None:
        r = self.resolve("initialize", ptr, len(data))
        if r is not None:
            self._b_host_write(r[0], r[1], data)

    def _host_target(self, call: str, ptr: int, nbytes: int) -> tuple[Allocation, int] | None:
        r = self.resolve(call, ptr, nbytes)
        if r is not None and r[0].kind == "device":
            self.error(HOST_ACCESS_DEVICE_MEMORY, call, f"{r[0].label} is device memory")
            return None
        return r

    def host_read(self, ptr: int, nbytes: int) -> bytes | None:
        self._tick()
        r = self._host_target("host_read", ptr, nbytes)
        if r is None:
            self.accesses.append(HostAccess(self.loc, "read", f"{ptr:#x}", None))
            return None
        data, mask = self._b_host_read(r[0], r[1], nbytes)
        value = hex_bytes(data, mask)
        self.accesses.append(HostAccess(self.loc, "read", f"{r[0].label}+{r[1]}", value))
        return data

    def host_write(self, ptr: int, data: bytes) -> None:
        self._tick()
        r = self._host_target("host_write", ptr, len(data))
        if r is None:
            self.accesses.append(HostAccess(self.loc, "write", f"{ptr:#x}", None))
            return
        self._b_host_write(r[0], r[1], data)
        self.accesses.append(HostAccess(self.loc, "write", f"{r[0].label}+{r[1]}", data.hex()))

    # -- outcome ------------------------------------------------------------
    def outcome(self) -> Outcome:
        self._b_settle()
        allocs = []
        for a in self.allocations:
            contents = None
            if not a.freed:
                data, mask = self._b_contents(a)
                contents = encode_contents(data, mask)
            allocs.append(AllocationState(a.label, a.size, a.kind, not a.freed, contents))
        live = [h for h in self.handles.values() if not h.destroyed]
        return Outcome(
            profile=self.profile.name,
            allocations=allocs,
            live_streams=[h.label for h in live if h.kind == "stream"],
            live_events=[h.label for h in live if h.kind == "event"],
            errors=list(self.errors),
            host_accesses=list(self.accesses),
        )

    def close(self) -> None:
        pass

    # -- backend hooks ------------------------------------------------------
    def _tick(self) -> None:
        """Called on entry to every API call (the simulator may run queued work)."""

    def _b_stream_create(self) -> int:
        raise NotImplementedError

    def _b_stream_destroy(self, stream: int) -> None:
        raise NotImplementedError

    def _b_stream_synchronize(self, stream: int) -> None:
        raise NotImplementedError

    def _b_stream_wait_event(self, stream: int, event: int) -> None:
        raise NotImplementedError

    def _b_event_create(self) -> int:
        raise NotImplementedError

    def _b_event_destroy(self, event: int) -> None:
        raise NotImplementedError

    def _b_event_record(self, event: int, stream: int) -> None:
        raise NotImplementedError

    def _b_event_synchronize(self, event: int) -> None:
        raise NotImplementedError

    def _b_alloc(self, size: int, kind: MemoryKind, stream: int) -> int:
        raise NotImplementedError

    def _b_memory_kind(self, base: int, requested: MemoryKind) -> MemoryKind:
        """The kind the backend really allocated (CuPy asks the driver)."""
        return requested

    def _b_free(self, alloc: Allocation, stream: int) -> None:
        raise NotImplementedError

    def _b_free_sync(self, alloc: Allocation) -> None:
        """Split API: wait for the device, then free."""
        self._b_settle()
        self._b_free(alloc, 0)

    def _b_free_async(self, alloc: Allocation, stream: int) -> None:
        """Split API: free once the stream's earlier work is done (default: now)."""
        self._b_free(alloc, stream)

    def _b_memcpy(
        self, dst: Allocation, doff: int, src: Allocation, soff: int, n: int, stream: int
    ) -> None:
        raise NotImplementedError

    def _b_memset(
        self, dst: Allocation, off: int, pattern: bytes, count: int, stream: int
    ) -> None:
        raise NotImplementedError

    def _b_host_read(self, a: Allocation, off: int, n: int) -> tuple[bytes, bytes | None]:
        raise NotImplementedError

    def _b_host_write(self, a: Allocation, off: int, data: bytes) -> None:
        raise NotImplementedError

    def _b_settle(self) -> None:
        raise NotImplementedError

    def _b_launch(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
                  stream: int, reads: frozenset[int], writes: frozenset[int]) -> None:
        raise NotImplementedError

    def _b_usable(self, alloc: Allocation) -> bool:
        """Not yet freed, as the device sees it when queued work runs."""
        return not alloc.freed

    def _b_host_free(self, alloc: Allocation) -> None:
        """`free`: at once, on the host (a device still using it is a race)."""
        self._b_free(alloc, 0)

    def _b_device_read(self, a: Allocation, off: int, n: int) -> bytes:
        raise NotImplementedError

    def _b_device_write(self, a: Allocation, off: int, data: bytes) -> None:
        raise NotImplementedError

    def _b_contents(self, a: Allocation) -> tuple[bytes, bytes | None]:
        raise NotImplementedError


class _CheckedDeviceMemory:
    """A kernel's view of runtime memory: each access resolved and checked;
    one error per launch (the first refused access), not one per thread."""

    def __init__(self, rt: CheckedRuntime, call: str) -> None:
        self.rt, self.call, self.failed = rt, call, False

    def _target(self, ptr: int, nbytes: int) -> tuple[Allocation, int] | None:
        if self.failed:
            return None
        r = self.rt.resolve(self.call, ptr, nbytes, device=True)
        self.failed = r is None
        return r

    def load(self, ptr: int, nbytes: int) -> bytes | None:
        r = self._target(ptr, nbytes)
        return None if r is None else self.rt._b_device_read(r[0], r[1], nbytes)

    def store(self, ptr: int, data: bytes) -> None:
        r = self._target(ptr, len(data))
        if r is not None:
            self.rt._b_device_write(r[0], r[1], data)
