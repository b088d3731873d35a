"""The mgpu runtime API as the oracles see it, and what a run leaves observable.

Every oracle (source interpreter, lowered-IR interpreter, native shim) talks to
a `Runtime`: the calls MLIR's GPU runtime wrappers export (`mgpuStreamCreate`,
`mgpuMemAlloc`, ...), with handles and pointers as plain integers and `0` as
the null stream.  A runtime never raises for a misuse by the program under
test: it records a `RuntimeErrorRecord` and carries on, so that one bad call
is a finding, not a harness crash.

Profiles (`cuda`, `hip`, `sycl`) are the contracts of the upstream wrappers as
DESIGN.md records them: CUDA honours `host_shared` (managed memory) and
ignores the stream of alloc/free; HIP ignores both the stream and the flag;
SYCL always allocates shared memory and dereferences the queue of every call
that takes one except allocation, so a null queue is an error there.  CUDA
and HIP define small integers as streams of their own (`special_streams`:
CU_STREAM_LEGACY 1, CU_STREAM_PER_THREAD / hipStreamPerThread 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from gpu_alloc_verify.oracles.kernel_api import Dim3, Kernel, KernelArg
from gpu_alloc_verify.verify.model.runtime_api import PROFILES as API_PROFILES

MemoryKind = Literal["device", "managed", "host"]  # host: malloc'd, not device-visible
Json: TypeAlias = dict[str, object]  # a JSON object, as `json.dumps` takes it

# Error kinds a runtime records (stable strings: outcomes are compared on them).
INVALID_HANDLE = "invalid-handle"  # a stream/event the runtime never created
USE_AFTER_DESTROY = "use-after-destroy"
DOUBLE_DESTROY = "double-destroy"
NULL_STREAM = "null-stream"  # the profile dereferences the stream
INVALID_POINTER = "invalid-pointer"  # not inside any allocation
OUT_OF_BOUNDS = "out-of-bounds"
USE_AFTER_FREE = "use-after-free"
DOUBLE_FREE = "double-free"
HOST_ACCESS_DEVICE_MEMORY = "host-access-device-memory"
DEVICE_ACCESS_HOST_MEMORY = "device-access-host-memory"  # a kernel touched host memory
BAD_LAUNCH = "bad-launch"  # a zero or negative grid/block dimension
HOST_RACE = "host-race"  # host access while unfinished device work touches it
DEVICE_RACE = "device-race"  # two unordered device operations conflict
BAD_SIZE = "bad-size"
BACKEND_ERROR = "backend-error"  # the real runtime (CuPy) reported a failure


@dataclass(frozen=True)
class Profile:
    """What one runtime wrapper does with the stream and the host_shared flag."""

    name: str
    always_shared: bool = False  # sycl: every allocation is shared (managed)
    honours_host_shared: bool = True  # hip: False, every allocation is device memory
    null_stream_ok: bool = True  # False: a null stream where one is used is an error
    free_uses_stream: bool = False  # sycl: mgpuMemFree dereferences the queue
    free_synchronizes: bool = True  # cuda/hip: the free waits for the device
    # The runtime's own stream handles (cuda: CU_STREAM_LEGACY 1 and
    # CU_STREAM_PER_THREAD 2; hip: hipStreamPerThread 2; sycl: none), from
    # `verify.model.runtime_api.PROFILES`: a stream to every call but
    # mgpuStreamDestroy, ordered with itself only (like the null stream).
    special_streams: frozenset[int] = frozenset()

    def memory_kind(self, host_shared: bool) -> MemoryKind:
        if self.always_shared:
            return "managed"
        if host_shared and self.honours_host_shared:
            return "managed"
        return "device"


PROFILES: dict[str, Profile] = {
    "cuda": Profile("cuda", special_streams=API_PROFILES["cuda"].special_streams),
    "hip": Profile("hip", honours_host_shared=False,
                   special_streams=API_PROFILES["hip"].special_streams),
    "sycl": Profile(
        "sycl",
        always_shared=True,
        null_stream_ok=False,
        free_uses_stream=True,
        free_synchronizes=False,
        special_streams=API_PROFILES["sycl"].special_streams,
    ),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"unknown runtime profile '{name}'; choose one of {', '.join(PROFILES)}"
        ) from None


@dataclass(frozen=True)
class RuntimeErrorRecord:
    kind: str
    call: str  # the API call that found it ("memset32", "host_read", ...)
    loc: str | None  # the source op id of the call ("op4")
    detail: str
    dims: tuple[int, ...] = ()  # a bad launch's grid and block, as numbers (not its words)


@dataclass(frozen=True)
class HostAccess:
    loc: str | None
    access: Literal["read", "write"]
    target: str  # allocation label and byte offset: "op3#0+0"
    value: str | None  # hex bytes ("??" for undefined ones); None when refused


@dataclass
class AllocationState:
    label: str  # "<source op>#<n>": the n-th allocation made by that op
    size: int
    kind: MemoryKind
    live: bool
    contents: str | None  # encode_contents() of the final bytes; None once freed


@dataclass
class Outcome:
    """The observable state of a run at exit (after all device work settled)."""

    profile: str
    allocations: list[AllocationState] = field(default_factory=list)
    live_streams: list[str] = field(default_factory=list)
    live_events: list[str] = field(default_factory=list)
    errors: list[RuntimeErrorRecord] = field(default_factory=list)
    host_accesses: list[HostAccess] = field(default_factory=list)

    def to_json(self) -> Json:
        return asdict(self)


@runtime_checkable
class Runtime(Protocol):
    """The mgpu API.  Handles and pointers are ints; 0 is the null stream/pointer."""

    profile: Profile

    def set_location(self, loc: str | None) -> None:
        """The source op the next calls come from (labels allocations and errors)."""
        ...

    def stream_create(self) -> int: ...
    def stream_destroy(self, stream: int) -> None: ...
    def stream_synchronize(self, stream: int) -> None: ...
    def stream_wait_event(self, stream: int, event: int) -> None: ...

    def event_create(self) -> int: ...
    def event_destroy(self, event: int) -> None: ...
    def event_record(self, event: int, stream: int) -> None: ...
    def event_synchronize(self, event: int) -> None: ...

    def mem_alloc(self, size: int, stream: int, host_shared: bool) -> int:
        """`mgpuMemAlloc(size, stream, isHostShared)` (LLVM 17 and later)."""
        ...

    def mem_alloc_sync(self, size: int, host_shared: bool) -> int:
        """Split API: `mgpuMemAlloc(size, isHostShared)`, no stream."""
        ...

    def mem_alloc_async(self, size: int, stream: int, host_shared: bool) -> int:
        """Split API: `mgpuMemAllocAsync(size, stream, isHostShared)`."""
        ...

    def mem_free(self, ptr: int, stream: int) -> None:
        """`mgpuMemFree(ptr, stream)`: what the profile's wrapper does with the stream."""
        ...

    def mem_free_sync(self, ptr: int) -> None:
        """Split API: `mgpuMemFree(ptr)`, host-synchronous, no stream."""
        ...

    def mem_free_async(self, ptr: int, stream: int) -> None:
        """Split API: `mgpuMemFreeAsync(ptr, stream)`, ordered on the stream."""
        ...

    def memcpy(self, dst: int, src: int, nbytes: int, stream: int) -> None: ...
    def memset32(self, dst: int, value: int, count: int, stream: int) -> None: ...
    def memset16(self, dst: int, value: int, count: int, stream: int) -> None: ...
    def memset8(self, dst: int, value: int, count: int, stream: int) -> None: ...
    def memset64(self, dst: int, value: int, count: int, stream: int) -> None: ...

    def launch(self, kernel: Kernel, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
               stream: int) -> None:
        """Queue `kernel` over the grid on `stream` (kernel_api.Kernel)."""
        ...

    def host_alloc(self, size: int, kind: MemoryKind = "host") -> int:
        """Host memory (`malloc`; `managed` for a buffer the caller passes in)."""
        ...

    def host_free(self, ptr: int) -> None: ...

    def is_live(self, handle: int) -> bool:
        """A stream or event this runtime made and nothing destroyed yet."""
        ...

    def initialize(self, ptr: int, data: bytes) -> None:
        """Set bytes before the run starts (an argument's contents): no access recorded."""
        ...

    def host_read(self, ptr: int, nbytes: int) -> bytes | None:
        """A host load; None when refused (device memory, freed, out of bounds)."""
        ...

    def host_write(self, ptr: int, data: bytes) -> None: ...

    def outcome(self) -> Outcome:
        """Settle all device work, then report the observable state."""
        ...

    def close(self) -> None:
        """Release real resources (a no-op for the simulator)."""
        ...


def memset_pattern(rt: Runtime, dst: int, pattern: bytes, count: int, stream: int) -> None:
    """`count` copies of `pattern` at `dst`: memset8/16/32/64 by its width."""
    memset = {1: rt.memset8, 2: rt.memset16, 4: rt.memset32, 8: rt.memset64}[len(pattern)]
    memset(dst, int.from_bytes(pattern, "little"), count, stream)


def chunk_width(n: int) -> int:
    """The chunk `encode_contents` writes `n` bytes in: 4 where the size allows, 2, else 1."""
    return 4 if n % 4 == 0 else 2 if n % 2 == 0 else 1


def encode_contents(data: bytes, mask: bytes | None = None) -> str:
    """Run-length hex of a buffer: "05000000*16,????????*4" (?? = never written).

    Chunks are 4 bytes when the size allows (2, else 1), so element patterns
    of every element type stay readable.
    """
    n = len(data)
    width = chunk_width(n)
    runs: list[tuple[str, int]] = []
    for i in range(0, n, width):
        chunk = "".join(
            "??" if mask is not None and not mask[j] else f"{data[j]:02x}"
            for j in range(i, i + width)
        )
        if runs and runs[-1][0] == chunk:
            runs[-1] = (chunk, runs[-1][1] + 1)
        else:
            runs.append((chunk, 1))
    return ",".join(c if k == 1 else f"{c}*{k}" for c, k in runs) or "empty"


def hex_bytes(data: bytes, mask: bytes | None = None) -> str:
    return "".join(
        "??" if mask is not None and not mask[i] else f"{b:02x}" for i, b in enumerate(data)
    )
