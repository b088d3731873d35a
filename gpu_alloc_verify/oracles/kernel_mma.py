"""`gpu.subgroup_mma_*` for `oracles.kernel_interp`: a small matrix interpreter.

A `!gpu.mma_matrix<RxCxT, "xOp">` is a subgroup-wide value; every lane of
the subgroup holds it whole here (a row-major tuple of R * C floats), which
is what the ops mean, since they are uniform across the subgroup: each lane
loads the same tile, computes the same product and stores the same bytes.
`compute` gives D = A * B + C with each element's dot product summed exactly
(`math.fsum`) and rounded once to D's type (a GPU's MMA unit accumulates at
its own precision; `differential` runs the same kernel on both sides, so the
choice never decides a verdict).  Float elements only (f16, f32, f64).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from gpu_alloc_verify.oracles.floats import ROUND
from gpu_alloc_verify.verify.ir.types import mma_matrix

Matrix = tuple[float, ...]
_FORMAT = {"f16": "<e", "f32": "<f", "f64": "<d"}
_BYTES = {"f16": 2, "f32": 4, "f64": 8}
_M64 = (1 << 64) - 1


def matrix_type(text: str) -> tuple[int, int, str] | None:
    """(rows, cols, element) of `!gpu.mma_matrix<16x16xf16, "AOp">`; None
    for another type or element."""
    found = mma_matrix(text)
    return found if found is not None and found[2] in _FORMAT else None


def load(read: Callable[[int, int], bytes | None], addr: int, rows: int, cols: int,
         ld: int, elem: str) -> Matrix:
    """The tile whose element (r, c) lies `r * ld + c` elements past `addr`."""
    n = _BYTES[elem]
    out = []
    for r in range(rows):
        for c in range(cols):
            raw = read((addr + (r * ld + c) * n) & _M64, n)
            out.append(struct.unpack(_FORMAT[elem], raw)[0] if raw is not None else 0.0)
    return tuple(out)


def store(write: Callable[[int, bytes], None], matrix: Matrix, addr: int, rows: int,
          cols: int, ld: int, elem: str) -> None:
    n = _BYTES[elem]
    for r in range(rows):
        for c in range(cols):
            write((addr + (r * ld + c) * n) & _M64, struct.pack(_FORMAT[elem],
                                                                matrix[r * cols + c]))


def compute(a: Matrix, b: Matrix, c: Matrix, m: int, n: int, k: int, elem: str) -> Matrix:
    """D = A (m x k) * B (k x n) + C (m x n), rounded to `elem` once per element."""
    r = ROUND[elem]
    return tuple(r(math.fsum([*(a[i * k + x] * b[x * n + j] for x in range(k)), c[i * n + j]]))
                 for i in range(m) for j in range(n))


def constant(value: float, rows: int, cols: int) -> Matrix:
    return (value,) * (rows * cols)
