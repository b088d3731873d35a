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
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any, TypeVar

from oracles.checked import Allocation, CheckedRuntime
from oracles.runtime import BACKEND_ERROR, MemoryKind, Profile

MEMCPY_DEFAULT = 4  # cudaMemcpyDefault
STREAM_NON_BLOCKING = 1  # cudaStreamNonBlocking
EVENT_DISABLE_TIMING = 2  # cudaEventDisableTiming
ATTACH_GLOBAL = 1  # cudaMemAttachGlobal
ATTR_CONCURRENT_MANAGED_ACCESS = 89  # cudaDevAttrConcurrentManagedAccess
POINTER_TYPE = {2: "device", 3: "managed"}  # cudaMemoryType

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
        if len(set(pattern)) == 1:
            self.rt.memsetAsync(ptr, pattern[0], len(pattern) * count, stream)
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

    def _b_contents(self, a: Allocation) -> tuple[bytes, bytes | None]:
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
