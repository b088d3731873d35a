"""Host memory ops and standard externals on the runtime.

xDSL's `memref` implementations keep buffers as Python lists; these replace
them with `MemRefView`s of runtime memory, so every host load and store goes
through `Runtime.host_read/host_write` (memory kinds, bounds, races checked,
accesses recorded as observables), as the lowered code's loads and stores do.
`memref.alloc` is host memory (`malloc` in the lowered code).  The print
externals read the whole buffer on the host and keep the text as output.
"""

from __future__ import annotations

from math import prod
from typing import Any

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_external,
    register_impls,
)

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, MemRefView
from gpu_alloc_verify.oracles.kernel_interp import decode_element, encode_element
from gpu_alloc_verify.oracles.source_interp import row_major_strides
from gpu_alloc_verify.oracles.source_xdsl.state import MAX_BYTES, state
from gpu_alloc_verify.oracles.source_xdsl.values import (
    TooLarge,
    Undefined,
    Unmodelled,
    address,
    as_int,
    contiguous,
    elem_of,
    scalar,
)

# The printers of MLIR's runner utils (`mlir/lib/ExecutionEngine/RunnerUtils.cpp`).
# (the declaration is the op the external gets: its own location keys the reads)
PRINTERS = frozenset({"printMemrefF32", "printMemrefF64", "printMemrefI32", "printMemrefI64"})


def view(v: Any) -> MemRefView:
    if not isinstance(v, MemRefView):
        raise Unmodelled(f"a buffer that is no memref view ({v!r})")
    return v


def fresh_view(ptr: int, t: MemRefType, dyn: list[int]) -> MemRefView:
    """The view of a new identity-layout buffer of type `t`."""
    if not isinstance(t.layout, NoneAttr):
        raise Unmodelled(f"an allocation with layout {t.layout}")
    it = iter(dyn)
    sizes = tuple(next(it) if d < 0 else d for d in t.get_shape())
    return MemRefView(ptr, 0, sizes, row_major_strides(sizes), elem_of(t))


def nbytes(t: MemRefType, dyn: list[int]) -> int:
    it = iter(dyn)
    n = prod(next(it) if d < 0 else d for d in t.get_shape()) * ELEM_BYTES[elem_of(t)]
    if n < 0 or n > MAX_BYTES:
        raise TooLarge(f"an allocation of {n} bytes")
    return n


def _indices(view_: MemRefView, args: PythonValues) -> list[int]:
    return [as_int(a) for a in args]


@register_impls
class HostFunctions(InterpreterFunctions):
    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp,
                  args: PythonValues) -> PythonValues:
        st = state(interpreter)
        t = op.memref.type
        assert isinstance(t, MemRefType)
        dyn = [as_int(a) for a in args[: len(op.dynamic_sizes)]]
        st.at(op)
        ptr = st.rt.host_alloc(nbytes(t, dyn))
        return (fresh_view(ptr, t, dyn),)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interpreter: Interpreter, op: memref.DeallocOp,
                    args: PythonValues) -> PythonValues:
        st = state(interpreter)
        st.at(op)
        st.rt.host_free(view(args[0]).ptr)
        return ()

    @impl(memref.LoadOp)
    def run_load(self, interpreter: Interpreter, op: memref.LoadOp,
                 args: PythonValues) -> PythonValues:
        st = state(interpreter)
        v = view(args[0])
        st.at(op)
        data = st.rt.host_read(address(v, _indices(v, args[1:])), ELEM_BYTES[v.elem])
        value = decode_element(data, v.elem) if data is not None else 0
        return (scalar(value, op.res.type),)

    @impl(memref.StoreOp)
    def run_store(self, interpreter: Interpreter, op: memref.StoreOp,
                  args: PythonValues) -> PythonValues:
        st = state(interpreter)
        value, v = args[0], view(args[1])
        raw: int | float = float(value.value.data) if v.elem.startswith(("f", "bf")) \
            else as_int(value)
        st.at(op)
        st.rt.host_write(address(v, _indices(v, args[2:])), encode_element(raw, v.elem))
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interpreter: Interpreter, op: memref.DimOp,
                args: PythonValues) -> PythonValues:
        return (scalar(view(args[0]).sizes[as_int(args[1])], op.result.type),)

    @impl(memref.CastOp)
    def run_cast(self, interpreter: Interpreter, op: memref.CastOp,
                 args: PythonValues) -> PythonValues:
        return (args[0],)  # the same buffer; a static shape is the program's promise

    @impl(memref.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: memref.CopyOp,
                 args: PythonValues) -> PythonValues:
        st = state(interpreter)
        src, dst = view(args[0]), view(args[1])
        if not (contiguous(src) and contiguous(dst)):
            raise Unmodelled("memref.copy of a strided view")
        if src.sizes != dst.sizes:
            raise Undefined(f"memref.copy of shape {src.sizes} into {dst.sizes}")
        st.at(op)
        n = prod(src.sizes) * ELEM_BYTES[src.elem]
        data = st.rt.host_read(address(src, [0] * len(src.sizes)), n)
        if data is not None:
            st.rt.host_write(address(dst, [0] * len(dst.sizes)), data)
        return ()

    def _print(self, interpreter: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        st = state(interpreter)
        v = view(args[0])
        if not contiguous(v):
            raise Unmodelled("printing a strided view")
        st.at(st.current if st.current is not None else op)  # the call, as lowered code keys it
        n = prod(v.sizes) * ELEM_BYTES[v.elem]
        data = st.rt.host_read(address(v, [0] * len(v.sizes)), n) if n else b""
        st.prints.append(f"{v.sizes}: {data.hex() if data is not None else 'refused'}")
        return ()

    @impl_external("printMemrefF32")
    def print_f32(self, interpreter: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return self._print(interpreter, op, args)

    @impl_external("printMemrefF64")
    def print_f64(self, interpreter: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return self._print(interpreter, op, args)

    @impl_external("printMemrefI32")
    def print_i32(self, interpreter: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return self._print(interpreter, op, args)

    @impl_external("printMemrefI64")
    def print_i64(self, interpreter: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return self._print(interpreter, op, args)
