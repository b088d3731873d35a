"""What a runtime needs to know of a kernel to launch it: the contract between
runtimes (`checked`, `simulated`, `cupy_runtime`), the interpreters that
launch (`source_interp`, `lowered_interp`) and the kernel interpreter
(`kernel_interp`).

A launch passes each kernel parameter as a `KernelArg`: a `MemRefView` (a
strided view of runtime memory, as a memref descriptor describes it) for a
memref parameter, a Python int (integers and `index`, unsigned modulo the
width) or float (every float type) for a scalar one.  The kernel touches
memory only through the `DeviceMemory` the runtime hands it, so the runtime
keeps checking bounds, freed buffers and memory kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from gpu_alloc_verify.verify.model.errors import KernelDeclined

Dim3 = tuple[int, int, int]

# The kernel uses something the interpreter does not model (the message names it).
KernelUnsupported = KernelDeclined


@dataclass(frozen=True)
class Param:
    """One kernel parameter as its `gpu.func` signature declares it."""

    kind: Literal["memref", "scalar"]
    type: str  # the printed type: "memref<4x?xf32, 1>", "f32", "index"
    elem: str  # element type of a memref, the type itself for a scalar
    rank: int = 0  # a memref's rank


@dataclass(frozen=True)
class MemRefView:
    """A memref argument: `ptr` (aligned pointer) + `offset` elements, strided."""

    ptr: int
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]  # in elements
    elem: str


KernelArg = MemRefView | int | float

# Bytes of a memref element (`index` is 64-bit, as gpu-to-llvm makes it).
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
              "i64": 8, "index": 8}


def view_extent(view: MemRefView) -> tuple[int, int] | None:
    """The bytes a view can touch, [lo, hi) relative to `view.ptr`; None when empty."""
    if any(s <= 0 for s in view.sizes):
        return None
    eb = ELEM_BYTES[view.elem]
    lo = hi = view.offset
    for size, stride in zip(view.sizes, view.strides, strict=True):
        lo += min(0, (size - 1) * stride)
        hi += max(0, (size - 1) * stride)
    return lo * eb, (hi + 1) * eb


@runtime_checkable
class DeviceMemory(Protocol):
    """Device-side loads and stores; a refused access returns None / is dropped,
    the runtime having recorded the error."""

    def load(self, ptr: int, nbytes: int) -> bytes | None: ...
    def store(self, ptr: int, data: bytes) -> None: ...


@runtime_checkable
class Kernel(Protocol):
    name: str  # the kernel's symbol, "kernels::fill_4xf32"
    params: tuple[Param, ...]
    reads: frozenset[int]  # indices of memref params the body may load from
    writes: frozenset[int]  # ... may store to (or hand to an op it cannot see into)
    cuda: str | None  # CUDA C source of the same kernel, where one exists (CuPy runs it)

    def run(self, grid: Dim3, block: Dim3, args: Sequence[KernelArg],
            memory: DeviceMemory) -> None:
        """Every thread of the grid, in some order; raises `KernelUnsupported`."""
        ...
