"""The gpu host ops on the runtime, as `oracles.source_interp` maps them.

Source text is read with the gpu dialect unregistered
(`verify.ir.xdsl_context.gpu_unregistered`: its ops read the same whatever
the MLIR version's generic spelling), so each op is xDSL's unregistered
class of its name, taken from that context and registered here by name.
Operands are told apart by type: tokens are dependencies, the rest are
the op's own.  A launch runs the kernel's own `gpu.func` body
(`oracles.kernel_interp`, loaded before the run by `kernels_of`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import lru_cache
from math import prod
from typing import Any

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    UnregisteredAttr,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, KernelArg, MemRefView
from gpu_alloc_verify.oracles.runtime import memset_pattern
from gpu_alloc_verify.oracles.source_xdsl.host_ops import fresh_view, nbytes, view
from gpu_alloc_verify.oracles.source_xdsl.state import State, state
from gpu_alloc_verify.oracles.source_xdsl.values import (
    TooLarge,
    Undefined,
    Unmodelled,
    address,
    as_int,
    contiguous,
    plain,
)
from gpu_alloc_verify.verify.ir.attrs import attr_of, launch_operands
from gpu_alloc_verify.verify.ir.protocols import IRValue
from gpu_alloc_verify.verify.ir.xdsl_context import gpu_unregistered

_Impl = Callable[[Any, Interpreter, Operation, PythonValues], PythonValues]
# Threads one launch may run here: each is interpreted in Python, and an
# argument-sized grid given a boundary integer would run for hours.
MAX_THREADS = 1 << 18


def _grid(sizes: list[int]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of the six launch sizes; TooLarge past `MAX_THREADS`."""
    if prod(max(n, 0) for n in sizes) > MAX_THREADS:
        raise TooLarge(f"a launch of {prod(sizes)} threads")
    return (sizes[0], sizes[1], sizes[2]), (sizes[3], sizes[4], sizes[5])


def is_token(v: IRValue) -> bool:
    t = v.type
    if isinstance(t, UnregisteredAttr) and t.attr_name.data == "gpu.async.token" \
            and not t.value.data:
        return True  # the token type itself, as the source reads it: no print, no hash
    if isinstance(t, _NOT_TOKENS):
        return False  # a builtin scalar: its text names no token
    return _token_type(t)


_NOT_TOKENS = (IndexType, IntegerType, Float16Type, BFloat16Type, Float32Type, Float64Type)


@functools.lru_cache(maxsize=1024)
def _token_type(t: Any) -> bool:
    """Printing a type is the cost (the gpu dialect is read unregistered),
    and a module has few distinct types: once per type."""
    return "gpu.async.token" in str(t)


def _split(op: Operation, args: PythonValues) -> tuple[list[Any], list[Any], bool]:
    """(dependency values, the other operand values, whether the op is async)."""
    tokens = [is_token(x) for x in op.operands]
    deps = [a for t, a in zip(tokens, args, strict=True) if t]
    rest = [a for t, a in zip(tokens, args, strict=True) if not t]
    return deps, rest, any(is_token(r) for r in op.results)


def _result(st: State, op: Operation, s: int, deps: list[Any], is_async: bool,
            *values: Any) -> PythonValues:
    tok = st.complete(op, s, deps, is_async)
    return (*values, tok) if is_async else tuple(values)


def run_wait(st: State, op: Operation, args: PythonValues) -> PythonValues:
    deps, _, is_async = _split(op, args)
    st.at(op)
    if not is_async:
        st.host_wait(deps)
        return ()
    return _result(st, op, st.stream_after(deps), deps, True)


def run_alloc(st: State, op: Operation, args: PythonValues) -> PythonValues:
    deps, rest, is_async = _split(op, args)
    t = op.results[0].type
    if not isinstance(t, MemRefType) or attr_of(op, "symbolOperands"):
        raise Unmodelled(f"gpu.alloc of {t}")
    dyn = [as_int(a) for a in rest]
    size = nbytes(t, dyn)
    shared = attr_of(op, "hostShared") is not None
    st.at(op)
    if not is_async:
        return (fresh_view(st.rt.mem_alloc_sync(size, shared), t, dyn),)
    s = st.stream_after(deps)
    ptr = st.rt.mem_alloc(size, s, shared)
    return _result(st, op, s, deps, True, fresh_view(ptr, t, dyn))


def run_dealloc(st: State, op: Operation, args: PythonValues) -> PythonValues:
    deps, rest, is_async = _split(op, args)
    st.at(op)
    st.host_wait(deps, counts=False)  # the free never races with the work it follows
    s = st.stream_after(deps)
    st.rt.mem_free(view(rest[0]).ptr, s)
    return _result(st, op, s, deps, is_async)


def run_memset(st: State, op: Operation, args: PythonValues) -> PythonValues:
    deps, rest, is_async = _split(op, args)
    dst, value = view(rest[0]), rest[1]
    if not contiguous(dst):
        raise Unmodelled("gpu.memset of a strided view")
    from gpu_alloc_verify.oracles.kernel_interp import encode_element

    raw = plain(value, op.operands[-1].type)
    st.at(op)
    s = st.stream_after(deps)
    memset_pattern(st.rt, address(dst, [0] * len(dst.sizes)), encode_element(raw, dst.elem),
                   prod(dst.sizes), s)
    return _result(st, op, s, deps, is_async)


def run_memcpy(st: State, op: Operation, args: PythonValues) -> PythonValues:
    deps, rest, is_async = _split(op, args)
    dst, src = view(rest[0]), view(rest[1])
    if not (contiguous(dst) and contiguous(src)):
        raise Unmodelled("gpu.memcpy of a strided view")
    if dst.sizes != src.sizes:  # the op requires equal shapes; a lowering may copy either's
        raise Undefined(f"gpu.memcpy of shape {src.sizes} into {dst.sizes}")
    st.at(op)
    s = st.stream_after(deps)
    st.rt.memcpy(address(dst, [0] * len(dst.sizes)), address(src, [0] * len(src.sizes)),
                 prod(dst.sizes) * ELEM_BYTES[dst.elem], s)
    return _result(st, op, s, deps, is_async)


def kernel_symbol(op: Operation) -> str:
    """The kernel a launch names, by function name (as the lowered side keys it)."""
    return str(attr_of(op, "kernel")).rsplit("@", 1)[-1].strip('"')


def run_launch(st: State, op: Operation, args: PythonValues) -> PythonValues:
    parts = launch_operands(op)
    if parts is None:
        raise Unmodelled("gpu.launch_func without the operand segments of LLVM 16-22")
    if parts.stream is not None:
        raise Unmodelled("gpu.launch_func with an async object in the source")
    value = dict(zip(op.operands, args, strict=True))
    deps = [value[d] for d in parts.deps]
    sizes = [as_int(value[s]) if s is not None else 1 for s in parts.sizes]
    kernel = st.kernels.get(kernel_symbol(op))
    if kernel is None:
        raise Unmodelled(f"kernel @{kernel_symbol(op)} has no gpu.func to run")
    kargs: list[KernelArg] = [_kernel_arg(value[x], x.type) for x in parts.operands]
    grid, block = _grid(sizes)
    st.at(op)
    s = st.stream_after(deps)
    st.rt.launch(kernel, grid, block, kargs, s)
    return _result(st, op, s, deps, any(is_token(r) for r in op.results))


def launch_key(op: Operation) -> str:
    """The key of an un-outlined launch's kernel in `State.kernels` (the
    module is parsed once, so the op object stands for itself)."""
    return f"gpu.launch@{id(op):x}"


def run_gpu_launch(st: State, op: Operation, args: PythonValues) -> PythonValues:
    """An un-outlined `gpu.launch`: its body as outlining makes it a kernel
    (`launch`), passed the values it uses from above, in outlining's order."""
    from gpu_alloc_verify.oracles.source_xdsl.launch import plan, segments

    dep_values, size_values = segments(op)
    value = dict(zip(op.operands, args, strict=True))
    deps = [value[d] for d in dep_values]
    sizes = [as_int(value[s]) for s in size_values]
    kernel = st.kernels.get(launch_key(op))
    if kernel is None:
        raise Unmodelled("a gpu.launch whose kernel was not built")
    if id(op) not in st.launch_args:
        st.launch_args[id(op)] = plan(op)
    captured = st.launch_args[id(op)]
    kargs = [_kernel_arg(v, x.type)
             for v, x in zip(st.interpreter.get_values(captured), captured, strict=True)]
    grid, block = _grid(sizes)
    st.at(op)
    s = st.stream_after(deps)
    st.rt.launch(kernel, grid, block, kargs, s)
    return _result(st, op, s, deps, any(is_token(r) for r in op.results))


def _kernel_arg(v: Any, t: Any) -> KernelArg:
    return v if isinstance(v, MemRefView) else plain(v, t)


def run_noop(st: State, op: Operation, args: PythonValues) -> PythonValues:
    """No effect a run can observe (`gpu.set_default_device` with one device,
    `gpu.host_register` of memory every access here reaches anyway)."""
    return ()


RUNNERS: dict[str, Callable[[State, Operation, PythonValues], PythonValues]] = {
    "gpu.wait": run_wait,
    "gpu.alloc": run_alloc,
    "gpu.dealloc": run_dealloc,
    "gpu.memset": run_memset,
    "gpu.memcpy": run_memcpy,
    "gpu.launch_func": run_launch,
    "gpu.launch": run_gpu_launch,
    "gpu.set_default_device": run_noop,
    # Pinning host memory: buffers here are one memory space already.
    "gpu.host_register": run_noop,
    "gpu.host_unregister": run_noop,
}


def _adapter(run: Callable[[State, Operation, PythonValues], PythonValues]) -> _Impl:
    # An unregistered op may be a terminator, so xDSL wants `impl_terminator`;
    # no successor (None) makes it an ordinary op to the region runner.
    def method(self: Any, interpreter: Interpreter, op: Operation,
               args: PythonValues) -> Any:
        return None, run(state(interpreter), op, args)
    return method


@lru_cache(maxsize=1)
def gpu_functions() -> InterpreterFunctions:
    """Implementations of `RUNNERS`, on the unregistered classes the source
    context parses these ops into."""
    ctx = gpu_unregistered()
    body: dict[str, Any] = {}
    for name, run in RUNNERS.items():
        op_type = ctx.get_optional_op(name)
        assert op_type is not None  # the context allows unregistered ops
        body["run_" + name.replace(".", "_")] = impl_terminator(op_type)(_adapter(run))
    cls: type[InterpreterFunctions] = register_impls(
        type("GpuFunctions", (InterpreterFunctions,), body))
    return cls()
