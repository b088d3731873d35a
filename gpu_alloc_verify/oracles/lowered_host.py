"""Host externals of MLIR's runner utils, as the lowered code calls them.

`printMemrefF32(rank, descriptor*)` (the unranked memref `func-to-llvm`
passes: its rank and a pointer to the ranked descriptor) reads the whole
buffer on the host, as `oracles.source_xdsl.host_ops` does on the source
side, so the read is an observable both sides record at the call's source
op.  The text printed is not compared (the runtime records the bytes read).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod

from gpu_alloc_verify.oracles.llvm_values import Unsupported

# Printer -> element bytes: every element type of the runner utils'
# `printMemref*(rank, ptr)` (`mlir/lib/ExecutionEngine/RunnerUtils.cpp`; F16
# and BF16 also in Intel's IMEX runner utils), complex ones but.
PRINTERS = {"printMemrefI8": 1, "printMemrefI16": 2, "printMemrefI32": 4,
            "printMemrefI64": 8, "printMemrefF16": 2, "printMemrefBF16": 2,
            "printMemrefF32": 4, "printMemrefF64": 8, "printMemrefInd": 8}

# What `vector.print` lowers to (`convert-vector-to-llvm`: the CRunnerUtils'
# printF32, printNewline, printString, ...) -> its arity.  They write to
# stdout and read no buffer: nothing the runtime observes, as on the source
# side (`oracles.source_xdsl.vector_ops`).
VECTOR_PRINTERS = {"printI64": 1, "printU64": 1, "printF16": 1, "printBF16": 1,
                   "printF32": 1, "printF64": 1, "printString": 1, "printOpen": 0,
                   "printClose": 0, "printComma": 0, "printNewline": 0}

# ROCm's `mgpuMemGetDeviceMemRef1d*(allocated, aligned, offset, size,
# stride)` (RocmRuntimeWrappers.cpp) returns {dev, dev, offset, {size},
# {stride}} with dev = hipHostGetDevicePointer(aligned): the device's name
# for the same memory.  One address space here, so dev is aligned itself.
DEVICE_MEMREF = {"mgpuMemGetDeviceMemRef1dFloat": "f32", "mgpuMemGetDeviceMemRef1dInt32": "i32"}

ReadBytes = Callable[[int, int], bytes | None]


def print_memref(name: str, args: Sequence[int], read: ReadBytes) -> None:
    """Read what `name(rank, descriptor*)` prints; `read(addr, n)` reads host
    bytes (stack or runtime), None where the runtime refused."""
    if len(args) != 2:
        raise Unsupported(f"@{name} with {len(args)} argument(s)")
    rank, desc = int(args[0]), int(args[1])
    if not 0 <= rank <= 8:
        raise Unsupported(f"@{name} of rank {rank}")
    raw = read(desc, 8 * (3 + 2 * rank))
    if raw is None:
        return
    words = [int.from_bytes(raw[k:k + 8], "little") for k in range(0, len(raw), 8)]
    aligned, offset = words[1], words[2]
    sizes, strides = words[3:3 + rank], words[3 + rank:]
    if not _contiguous(sizes, strides):
        raise Unsupported(f"@{name} of a strided view")  # as the source side declines
    n = prod(sizes) * PRINTERS[name]
    if n:
        read((aligned + offset * PRINTERS[name]) & ((1 << 64) - 1), n)


def _contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    step = 1
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size > 1 and stride != step:
            return False
        step *= size
    return True
