"""MLIR's strided-layout rules for `memref.subview`, on plain numbers, for
both interpreters (the source's `MemRefView`s and the lowered side's
descriptors): the same rules, so a difference is the lowering's."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

DYNAMIC = -(1 << 63)  # MLIR's marker of a dynamic entry in static_offsets/sizes/strides

Layout = tuple[int, tuple[int, ...], tuple[int, ...]]  # offset, sizes, strides


def mixed(static: Sequence[int], dynamic: Sequence[int]) -> list[int]:
    """Static entries with each DYNAMIC one taken, in order, from `dynamic`."""
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC else s for s in static]


def dropped(sizes: Sequence[int], result_shape: Sequence[int]) -> set[int]:
    """The unit dimensions a rank-reducing subview drops: matched from the
    left, as MLIR's `computeRankReductionMask` matches a static shape
    (a negative entry of `result_shape` is dynamic)."""
    if len(sizes) == len(result_shape):
        return set()
    drop, k = set(), 0
    for d, n in enumerate(sizes):
        if k < len(result_shape) and (result_shape[k] == n or result_shape[k] < 0):
            k += 1
        elif n == 1:
            drop.add(d)
        else:
            raise InterpreterDeclined(f"a rank-reducing subview of sizes {list(sizes)} to "
                                      f"{list(result_shape)}")
    if k != len(result_shape):
        raise InterpreterDeclined(f"a rank-reducing subview of sizes {list(sizes)} to "
                                  f"{list(result_shape)}")
    return drop


def subview(src: Layout, offsets: Sequence[int], sizes: Sequence[int],
            steps: Sequence[int], result_shape: Sequence[int]) -> Layout:
    """The layout of `subview src[offsets][sizes][steps]`: the offset moves by
    each offset times the source stride, strides multiply, dropped unit
    dimensions go."""
    offset, _, strides = src
    new_offset = offset + sum(o * s for o, s in zip(offsets, strides, strict=True))
    new_strides = [st * s for st, s in zip(steps, strides, strict=True)]
    drop = dropped(sizes, result_shape)
    keep = [d for d in range(len(sizes)) if d not in drop]
    return new_offset, tuple(sizes[d] for d in keep), tuple(new_strides[d] for d in keep)


def out_of_bounds(src_sizes: Sequence[int], offsets: Sequence[int], sizes: Sequence[int],
                  steps: Sequence[int]) -> str:
    """Why the subview reaches past its source (undefined behaviour), or ""."""
    for o, n, st, full in zip(offsets, sizes, steps, src_sizes, strict=True):
        if o < 0 or n < 0 or st < 1 or (n > 0 and o + (n - 1) * st >= full):
            return f"a subview [{o}, size {n}, stride {st}] of a dimension of {full}"
    return ""
