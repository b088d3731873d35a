"""The `Runtime` protocol on a real CUDA GPU, through `cupy.cuda.runtime`.

It does what the upstream CUDA wrapper does (non-blocking streams, events
without timing, `cudaMallocManaged` for host_shared, a synchronizing free)
and keeps every check of `CheckedRuntime`: a bad handle never reaches the
driver, where it could crash the process.  CuPy is imported lazily, so this
module imports fine on a machine without it; `cupy_available()` says whether
a run is possible.

Bytes never written are tracked in a shadow mask updated at call time (the
GPU cannot say which bytes were written), so outcomes compare with the
simulator's.  A host access to managed memory reads it directly; on a GPU
without concurrent managed access the device is synchronized first (a race
then goes unseen, but the process survives).

Kernels run as `kernel.cuda` (CUDA C, `oracles.kernel_cuda`) through
`cupy.RawKernel` on the launch's stream; a kernel without CUDA source is a
`backend-error`, not a crash.  Which bytes a launch writes is found by
running the kernel once through the interpreter on a memory that only
records stores (loads read zeros: the catalogue's addresses never depend on
loaded values), so the shadow mask equals the simulator's; where that dry
run fails, the whole extent of every written view counts as written.

Host memory (`host_alloc`, kind "host": `malloc`) is plain pageable process
memory (a ctypes buffer): the host reads and writes it directly, `memcpy`
reaches it through `cudaMemcpyDefault` (unified addressing), and a kernel
never touches it (`CheckedRuntime.launch` refuses such a view first).
Memsets of any pattern width run as `cudaMemsetAsync` when every byte of the
pattern is equal, else as `cuMemsetD16/D32Async`, else (64-bit patterns) as a
`cudaMemcpyAsync` from a host copy of the filled range, kept alive until the
device has settled.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gpu_alloc_verify.oracles.checked import Allocation, CheckedRuntime
from gpu_alloc_verify.oracles.kernel_api import Dim3, Kernel, KernelArg, MemRefView, view_extent
from gpu_alloc_verify.oracles.runtime import BACKEND_ERROR, MemoryKind, Profile

MEMCPY_DEFAULT = 4  # cudaMemcpyDefault
STREAM_NON_BLOCKING = 1  # cudaStreamNonBlocking
EVENT_DISABLE_TIMING = 2  # cudaEventDisableTiming
ATTACH_GLOBAL = 1  # cudaMemAttachGlobal
ATTR_CONCURRENT_MANAGED_ACCESS = 89  # cudaDevAttrConcurrentManagedAccess
POINTER_TYPE = {2: "device", 3: "managed"}  # cudaMemoryType (host memory is never asked)

T = TypeVar("T")


def cupy_available() -> bool:
    """CuPy imports and sees at least one CUDA device."""
    try:
        import cupy  # noqa: F401
        from cupy.cuda import runtime

        return int(runtime.getDeviceCount()) > 0
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return False


def _driver() -> Any:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


_RAW_KERNELS: dict[tuple[str, str], Any] = {}


def _raw_kernel(cupy: Any, code: str, name: str) -> Any:
    """One `cupy.RawKernel` per source (it compiles once per device, on first use)."""
    key = (code, name)
    if key not in _RAW_KERNELS:
        _RAW_KERNELS[key] = cupy.RawKernel(code, name)
    return _RAW_KERNELS[key]


class _StoreRecorder:
    """A `DeviceMemory` that reads zeros and records where the kernel stores."""

    def __init__(self) -> None:
        self.stores: list[tuple[int, int]] = []

    def load(self, ptr: int, nbytes: int) -> bytes | None:
        return bytes(nbytes)

    def store(self, ptr: int, data: bytes) -> None:
        self.stores.append((ptr, len(data)))


class CupyRuntime(CheckedRuntime):
    def __init__(self, profile: str | Profile = "cuda", seed: int = 0) -> None:
        super().__init__(profile)
        if self.profile.name != "cuda":
            raise ValueError("CupyRuntime runs the cuda profile only (it is CUDA)")
        import cupy
        from cupy.cuda import runtime

        self.seed = seed  # schedules are the GPU's own; kept for the factory signature
        self.cp = cupy
        self.rt = runtime
        self.masks: dict[int, bytearray] = {}
        self.bases: dict[int, int] = {}  # allocation base -> real size allocated
        self.host_buffers: dict[int, ctypes.Array[ctypes.c_char]] = {}  # "host" kind
        self.staging: list[ctypes.Array[ctypes.c_char]] = []  # sources of pending copies
        self.live_streams: set[int] = set()
        self.live_events: set[int] = set()
        self.driver = _driver()
        device = runtime.getDevice()
        self.concurrent_managed = bool(
            runtime.deviceGetAttribute(ATTR_CONCURRENT_MANAGED_ACCESS, device)
        )

    def _guard(self, call: str, fn: Callable[[], T], default: T) -> T:
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - CUDA errors are findings
            self.error(BACKEND_ERROR, call, f"{type(e).__name__}: {e}")
            return default

    # -- streams and events -------------------------------------------------
    def _b_stream_create(self) -> int:
        s = int(self._guard(
            "stream_create", lambda: self.rt.streamCreateWithFlags(STREAM_NON_BLOCKING), 0
        ))
        self.live_streams.add(s)
        return s

    def _b_stream_destroy(self, stream: int) -> None:
        self.live_streams.discard(stream)
        self._guard("stream_destroy", lambda: self.rt.streamDestroy(stream), None)

    def _b_stream_synchronize(self, stream: int) -> None:
        self._guard("stream_synchronize", lambda: self.rt.streamSynchronize(stream), None)

    def _b_stream_wait_event(self, stream: int, event: int) -> None:
        self._guard(
            "stream_wait_event", lambda: self.rt.streamWaitEvent(stream, event, 0), None
        )

    def _b_event_create(self) -> int:
        e = int(self._guard(
            "event_create", lambda: self.rt.eventCreateWithFlags(EVENT_DISABLE_TIMING), 0
        ))
        self.live_events.add(e)
        return e

    def _b_event_destroy(self, event: int) -> None:
        self.live_events.discard(event)
        self._guard("event_destroy", lambda: self.rt.eventDestroy(event), None)

    def _b_event_record(self, event: int, stream: int) -> None:
        self._guard("event_record", lambda: self.rt.eventRecord(event, stream), None)

    def _b_event_synchronize(self, event: int) -> None:
        self._guard("event_synchronize", lambda: self.rt.eventSynchronize(event), None)

    # -- memory -------------------------------------------------------------
    def _b_alloc(self, size: int, kind: MemoryKind, stream: int) -> int:
        n = max(size, 1)  # a zero-byte cudaMalloc gives no distinct pointer
        if kind == "host":
            buf = ctypes.create_string_buffer(n)
            ptr = ctypes.addressof(buf)
            self.host_buffers[ptr] = buf
            self.masks[len(self.allocations)] = bytearray(size)
            return ptr
        if kind == "managed":
            ptr = self._guard("mem_alloc", lambda: self.rt.mallocManaged(n, ATTACH_GLOBAL), 0)
        else:
            ptr = self._guard("mem_alloc", lambda: self.rt.malloc(n), 0)
        ptr = int(ptr)
        if ptr:
            self.masks[len(self.allocations)] = bytearray(size)
            self.bases[ptr] = n
        return ptr

    def _b_memory_kind(self, base: int, requested: MemoryKind) -> MemoryKind:
        try:
            attrs = self.rt.pointerGetAttributes(base)
            kind = getattr(attrs, "type", getattr(attrs, "memoryType", -1))
            return POINTER_TYPE.get(int(kind), requested)  # type: ignore[return-value]
        except Exception:  # noqa: BLE001 - keep what was asked for
            return requested

    def _b_free(self, alloc: Allocation, stream: int) -> None:
        if alloc.base in self.host_buffers:  # `free`: copies from it are staged already
            del self.host_buffers[alloc.base]
            return
        self.bases.pop(alloc.base, None)
        self._guard("mem_free", lambda: self.rt.free(alloc.base), None)

    def _b_memcpy(
        self, dst: Allocation, doff: int, src: Allocation, soff: int, n: int, stream: int
    ) -> None:
        self._guard(
            "memcpy",
            lambda: self.rt.memcpyAsync(dst.base + doff, src.base + soff, n,
                                        MEMCPY_DEFAULT, stream),
            None,
        )
        self.masks[dst.index][doff : doff + n] = self.masks[src.index][soff : soff + n]

    def _b_memset(
        self, dst: Allocation, off: int, pattern: bytes, count: int, stream: int
    ) -> None:
        ptr, n = dst.base + off, len(pattern) * count
        call = f"memset{8 * len(pattern)}"
        self._guard(call, lambda: self._device_memset(ptr, pattern, count, stream), None)
        self.masks[dst.index][off : off + n] = b"\x01" * n

    def _device_memset(self, ptr: int, pattern: bytes, count: int, stream: int) -> None:
        while len(pattern) > 1 and pattern[: len(pattern) // 2] == pattern[len(pattern) // 2:]:
            pattern, count = pattern[: len(pattern) // 2], count * 2  # the narrowest width
        if len(pattern) == 1:
            self.rt.memsetAsync(ptr, pattern[0], count, stream)
            return
        if len(pattern) == 8:  # no cuMemsetD64: copy the filled range from the host
            src = ctypes.create_string_buffer(pattern * count, 8 * count)
            self.staging.append(src)
            self.rt.memcpyAsync(ptr, ctypes.addressof(src), 8 * count, MEMCPY_DEFAULT, stream)
            return
        value = int.from_bytes(pattern, "little")
        name = {4: "cuMemsetD32Async", 2: "cuMemsetD16Async"}[len(pattern)]
        fn = getattr(self.driver, name, None) if self.driver is not None else None
        if fn is not None:
            c_value = ctypes.c_uint if len(pattern) == 4 else ctypes.c_ushort
            fn.argtypes = [ctypes.c_uint64, c_value, ctypes.c_size_t, ctypes.c_void_p]
            fn.restype = ctypes.c_int
            rc = fn(ptr, value, count, stream or None)
            if rc != 0:
                raise RuntimeError(f"{name} returned CUresult {rc}")
            return
        # No driver library: a fill kernel on the stream does the same.
        dtype = self.cp.uint32 if len(pattern) == 4 else self.cp.uint16
        mem = self.cp.cuda.UnownedMemory(ptr, len(pattern) * count, self)
        arr = self.cp.ndarray((count,), dtype=dtype, memptr=self.cp.cuda.MemoryPointer(mem, 0))
        with self.cp.cuda.ExternalStream(stream):
            arr.fill(value)

    # -- kernels --------------------------------------------------------------
    def _b_launch(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
                  stream: int, reads: frozenset[int], writes: frozenset[int]) -> None:
        call = f"launch @{kernel.name}"
        if kernel.cuda is None:
            self.error(BACKEND_ERROR, call, f"kernel @{kernel.name} has no CUDA source "
                       "(CupyRuntime runs only kernels with one: the catalogue's)")
            return
        written = self._written(kernel, grid, block, args, writes)
        if not self._guard(call, lambda: self._launch_cuda(kernel, grid, block, args, stream),
                           False):
            return
        for index, lo, hi in written:
            self.masks[index][lo:hi] = b"\x01" * (hi - lo)

    def _launch_cuda(self, kernel: Kernel, grid: Dim3, block: Dim3,
                     args: Sequence[KernelArg], stream: int) -> bool:
        from gpu_alloc_verify.oracles.kernel_cuda import cuda_args, entry_name

        assert kernel.cuda is not None
        fn = _raw_kernel(self.cp, kernel.cuda, entry_name(kernel.name))
        values = cuda_args(kernel.params, args)
        if stream:
            with self.cp.cuda.ExternalStream(stream):
                fn(tuple(grid), tuple(block), values)
        else:
            fn(tuple(grid), tuple(block), values)
        return True

    def _written(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
                 writes: frozenset[int]) -> list[tuple[int, int, int]]:
        """(allocation index, lo, hi): the byte ranges the launch writes, in
        allocations of `writes`: exactly, by a dry run of the interpreter, else
        the whole extent of every written view."""
        ranges: list[tuple[int, int]] = []
        try:
            recorder = _StoreRecorder()
            kernel.run(grid, block, args, recorder)
            ranges = recorder.stores
        except Exception:  # noqa: BLE001 - any failure: fall back to the views' extents
            for k, arg in enumerate(args):
                if isinstance(arg, MemRefView) and k in kernel.writes:
                    extent = view_extent(arg)
                    if extent is not None:
                        ranges.append((arg.ptr + extent[0], extent[1] - extent[0]))
        out = []
        for ptr, n in ranges:
            a = self.find(ptr)
            if a is None or a.index not in writes:
                continue
            lo = ptr - a.base
            out.append((a.index, max(lo, 0), min(lo + n, a.size)))
        return out

    def _b_device_read(self, a: Allocation, off: int, n: int) -> bytes:
        """A synchronous device read (the device settled first)."""
        self._b_settle()
        buf = ctypes.create_string_buffer(max(n, 1))
        self._guard("device_read",
                    lambda: self.rt.memcpy(ctypes.addressof(buf), a.base + off, n,
                                           MEMCPY_DEFAULT), None)
        return buf.raw[:n]

    def _b_device_write(self, a: Allocation, off: int, data: bytes) -> None:
        """A synchronous device write (the device settled first)."""
        self._b_settle()
        buf = ctypes.create_string_buffer(data, max(len(data), 1))
        self._guard("device_write",
                    lambda: self.rt.memcpy(a.base + off, ctypes.addressof(buf), len(data),
                                           MEMCPY_DEFAULT), None)
        self.masks[a.index][off : off + len(data)] = b"\x01" * len(data)

    def _b_host_read(self, a: Allocation, off: int, n: int) -> tuple[bytes, bytes | None]:
        if not self.concurrent_managed:
            self._guard("host_read", self.rt.deviceSynchronize, None)
        data = ctypes.string_at(a.base + off, n)
        return data, bytes(self.masks[a.index][off : off + n])

    def _b_host_write(self, a: Allocation, off: int, data: bytes) -> None:
        if not self.concurrent_managed:
            self._guard("host_write", self.rt.deviceSynchronize, None)
        ctypes.memmove(a.base + off, data, len(data))
        self.masks[a.index][off : off + len(data)] = b"\x01" * len(data)

    def _b_settle(self) -> None:
        self._guard("device_synchronize", self.rt.deviceSynchronize, None)
        self.staging.clear()

    def _b_contents(self, a: Allocation) -> tuple[bytes, bytes | None]:
        if a.base in self.host_buffers:
            return ctypes.string_at(a.base, a.size), bytes(self.masks[a.index])
        buf = ctypes.create_string_buffer(max(a.size, 1))
        self._guard(
            "outcome",
            lambda: self.rt.memcpy(ctypes.addressof(buf), a.base, a.size, MEMCPY_DEFAULT),
            None,
        )
        return buf.raw[: a.size], bytes(self.masks[a.index])

    def close(self) -> None:
        """Give back what the program leaked, so a campaign does not exhaust the GPU."""
        self._guard("close", self.rt.deviceSynchronize, None)
        releases: list[tuple[Callable[[int], Any], int]] = [
            *((self.rt.free, p) for p in self.bases),
            *((self.rt.eventDestroy, e) for e in self.live_events),
            *((self.rt.streamDestroy, s) for s in self.live_streams),
        ]
        for release, handle in releases:
            self._guard("close", lambda: release(handle), None)  # noqa: B023 - called at once
        self.bases.clear()
        self.live_events.clear()
        self.live_streams.clear()
        self.host_buffers.clear()
        self.staging.clear()
