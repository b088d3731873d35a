"""`memref` view ops on the source interpreter: a view of the same buffer
with another offset, sizes and strides (MLIR's strided-layout rules), so
loads, stores and copies through it reach the bytes the lowered
descriptor arithmetic reaches."""

from __future__ import annotations

from itertools import product
from math import prod

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.ops import FillOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gpu_alloc_verify.oracles.kernel_api import MemRefView
from gpu_alloc_verify.oracles.source_xdsl.host_ops import store_at, view
from gpu_alloc_verify.oracles.source_xdsl.values import Undefined, Unmodelled, as_int
from gpu_alloc_verify.oracles.strided import mixed, out_of_bounds, subview


@register_impls
class ViewFunctions(InterpreterFunctions):
    @impl(memref.SubviewOp)
    def run_subview(self, interpreter: Interpreter, op: memref.SubviewOp,
                    args: PythonValues) -> PythonValues:
        src = view(args[0])
        n_off, n_size = len(op.offsets), len(op.sizes)
        ints = [as_int(a) for a in args[1:]]
        offsets = mixed(op.static_offsets.get_values(), ints[:n_off])
        sizes = mixed(op.static_sizes.get_values(), ints[n_off:n_off + n_size])
        steps = mixed(op.static_strides.get_values(), ints[n_off + n_size:])
        why = out_of_bounds(src.sizes, offsets, sizes, steps)
        if why:  # undefined behaviour: no outcome to compare
            raise Undefined(why)
        t = op.result.type
        assert isinstance(t, MemRefType)
        offset, shape, strides = subview((src.offset, src.sizes, src.strides), offsets, sizes,
                                         steps, t.get_shape())
        return (MemRefView(src.ptr, offset, shape, strides, src.elem),)

    @impl(memref.CollapseShapeOp)
    def run_collapse_shape(self, interpreter: Interpreter, op: memref.CollapseShapeOp,
                           args: PythonValues) -> PythonValues:
        src = view(args[0])
        sizes, strides = [], []
        for group in op.reassociation:
            dims = [int(d.value.data) for d in group]
            for a, b in zip(dims, dims[1:], strict=False):
                # A group collapses only where it is contiguous in memory
                # (the op's verifier requires it of the static layout).
                if src.sizes[b] > 1 and src.strides[a] != src.strides[b] * src.sizes[b]:
                    raise Unmodelled("memref.collapse_shape of a non-contiguous group")
            sizes.append(prod(src.sizes[d] for d in dims))
            strides.append(src.strides[dims[-1]] if dims else 1)
        return (MemRefView(src.ptr, src.offset, tuple(sizes), tuple(strides), src.elem),)

    @impl(FillOp)
    def run_fill(self, interpreter: Interpreter, op: FillOp,
                 args: PythonValues) -> PythonValues:
        # Element by element in row-major order, as the lowered side's
        # `linalg.fill` (or its loops) writes them.
        if not fill_body_is_plain(op):
            raise Unmodelled("a linalg.fill whose body converts the value")
        if len(args) != 2 or len(op.res):
            raise Unmodelled("linalg.fill on a tensor")
        v = view(args[1])
        for idx in product(*(range(n) for n in v.sizes)):
            store_at(interpreter, op, args[0], v, list(idx))
        return ()


def fill_body_is_plain(op: object) -> bool:
    """The body yields its input as it is (no conversion to the element type)."""
    body = op.regions[0].blocks[0]  # type: ignore[attr-defined]
    ops = list(body.ops)
    return len(ops) == 1 and list(ops[0].operands) == [body.args[0]]
