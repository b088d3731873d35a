"""Host memory ops and standard externals on the runtime.

xDSL's `memref` implementations keep buffers as Python lists; these replace
them with `MemRefView`s of runtime memory, so every host load and store goes
through `Runtime.host_read/host_write` (memory kinds, bounds, races checked,
accesses recorded as observables), as the lowered code's loads and stores do.
`memref.alloc` is host memory (`malloc` in the lowered code).  The print
externals read the whole buffer on the host and keep the text as output.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, NoneAttr, UnitAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_external,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from gpu_alloc_verify.oracles.dense_init import dense_bytes
from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, MemRefView
from gpu_alloc_verify.oracles.kernel_interp import decode_element, encode_element
from gpu_alloc_verify.oracles.lowered_host import DEVICE_MEMREF
from gpu_alloc_verify.oracles.lowered_host import PRINTERS as LOWERED_PRINTERS
from gpu_alloc_verify.oracles.source_interp import row_major_strides
from gpu_alloc_verify.oracles.source_xdsl.state import MAX_BYTES, state
from gpu_alloc_verify.oracles.source_xdsl.values import (
    Scalar,
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
# Every element type the lowered side's `lowered_host.PRINTERS` reads.
PRINTERS = frozenset(LOWERED_PRINTERS)
# The externals modelled here: the printers and ROCm's device-pointer helpers.
MODELLED = PRINTERS | frozenset(DEVICE_MEMREF)


def view(v: object) -> MemRefView:
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


def _global(op: Operation, name: str) -> memref.GlobalOp:
    module = op
    while module.parent_op() is not None:
        module = module.parent_op()  # type: ignore[assignment]
    for g in module.walk():
        if isinstance(g, memref.GlobalOp) and g.sym_name.data == name:
            return g
    raise Unmodelled(f"memref.get_global of @{name}, no memref.global")


def load_at(interpreter: Interpreter, op: Operation, v: MemRefView, idx: list[int],
            t: Attribute) -> Scalar:
    """A host load of element `idx` of `v`, as a value of type `t`."""
    st = state(interpreter)
    st.at(op)
    data = st.rt.host_read(address(v, idx), ELEM_BYTES[v.elem])
    return scalar(decode_element(data, v.elem) if data is not None else 0, t)


def store_at(interpreter: Interpreter, op: Operation, value: Scalar, v: MemRefView,
             idx: list[int]) -> None:
    st = state(interpreter)
    raw: int | float = float(value.value.data) if v.elem.startswith(("f", "bf")) \
        else as_int(value)
    st.at(op)
    st.rt.host_write(address(v, idx), encode_element(raw, v.elem))


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
        v = view(args[0])
        return (load_at(interpreter, op, v, _indices(v, args[1:]), op.res.type),)

    @impl(memref.StoreOp)
    def run_store(self, interpreter: Interpreter, op: memref.StoreOp,
                  args: PythonValues) -> PythonValues:
        v = view(args[1])
        store_at(interpreter, op, args[0], v, _indices(v, args[2:]))
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interpreter: Interpreter, op: memref.DimOp,
                args: PythonValues) -> PythonValues:
        return (scalar(view(args[0]).sizes[as_int(args[1])], op.result.type),)

    @impl(memref.CastOp)
    def run_cast(self, interpreter: Interpreter, op: memref.CastOp,
                 args: PythonValues) -> PythonValues:
        return (args[0],)  # the same buffer; a static shape is the program's promise

    @impl(memref.GetGlobalOp)
    def run_get_global(self, interpreter: Interpreter, op: memref.GetGlobalOp,
                       args: PythonValues) -> PythonValues:
        # One host buffer per global, made at its first use and labelled by
        # the global's location: the lowered side's `llvm.mlir.global`
        # carries the same one, so both sides name the buffer alike.
        st = state(interpreter)
        name = op.name_.root_reference.data
        if name not in st.globals:
            glob = _global(op, name)
            t = glob.type
            st.at(glob)
            ptr = st.rt.host_alloc(nbytes(t, []))
            if not isinstance(glob.initial_value, UnitAttr):  # unit: uninitialized
                st.rt.initialize(ptr, dense_bytes(str(glob.initial_value)))
            st.globals[name] = fresh_view(ptr, t, [])
        return (st.globals[name],)

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

    def _print(self, interpreter: Interpreter, op: Operation,
               args: PythonValues) -> PythonValues:
        st = state(interpreter)
        v = view(args[0])
        if not contiguous(v):
            raise Unmodelled("printing a strided view")
        st.at(st.current if st.current is not None else op)  # the call, as lowered code keys it
        n = prod(v.sizes) * ELEM_BYTES[v.elem]
        data = st.rt.host_read(address(v, [0] * len(v.sizes)), n) if n else b""
        st.prints.append(f"{v.sizes}: {data.hex() if data is not None else 'refused'}")
        return ()

    def _device_memref(self, name: str, args: PythonValues) -> PythonValues:
        # The same memory under the device's name (`lowered_host.DEVICE_MEMREF`).
        v = view(args[0])
        if v.elem != DEVICE_MEMREF[name] or len(v.sizes) != 1:
            raise Unmodelled(f"@{name} of a {v.elem} buffer of rank {len(v.sizes)}")
        return (MemRefView(v.ptr, v.offset, v.sizes, v.strides, v.elem),)

    @impl_external("mgpuMemGetDeviceMemRef1dFloat")
    def device_memref_f32(self, interpreter: Interpreter, op: Operation,
                          args: PythonValues) -> PythonValues:
        return self._device_memref("mgpuMemGetDeviceMemRef1dFloat", args)

    @impl_external("mgpuMemGetDeviceMemRef1dInt32")
    def device_memref_i32(self, interpreter: Interpreter, op: Operation,
                          args: PythonValues) -> PythonValues:
        return self._device_memref("mgpuMemGetDeviceMemRef1dInt32", args)


def _printer() -> Callable[[HostFunctions, Interpreter, Operation, PythonValues],
                           PythonValues]:
    # One function object per name: `impl_external` marks the function itself.
    def run(self: HostFunctions, interpreter: Interpreter, op: Operation,
            args: PythonValues) -> PythonValues:
        return self._print(interpreter, op, args)
    return run


for _name in sorted(PRINTERS):
    setattr(HostFunctions, _name, impl_external(_name)(_printer()))
register_impls(HostFunctions)  # again: the printers are part of it now
