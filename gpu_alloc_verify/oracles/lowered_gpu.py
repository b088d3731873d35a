"""The `gpu.*` ops a lowered module may still hold, run by the lowered-IR
interpreter (`oracles.lowered_interp`).

- A converted `gpu.launch_func` (its operands LLVM values, its stream the
  async object) is a kernel launch on that stream.  One without a stream is
  what LLVM's translation makes of it: a stream created for it, the launch,
  a synchronize and a destroy.  Memref operands arrive as expanded
  descriptors (allocated pointer, aligned pointer, offset, sizes, strides)
  and are read back per the kernel's own parameters.
- An op the lowering left behind (a *residue*) runs with its source meaning,
  so the rest of a partly lowered program is still compared; the
  `lowering-complete` invariant reports the residue itself.  A residue runs
  on a stream of its own that first waits on its dependencies through
  events; its token is that stream.  A lowering treats a token as a stream
  or as an event depending on what made it, and a leftover op made this
  one, so lowered code that passes it where an event goes gets the most
  favourable reading: the work queued on the stream so far (an event
  synchronize is a stream synchronize, a wait on it waits for that work, a
  destroy is left to the end of the run).  What a residue made and the
  lowered code left alive is destroyed when the run ends, as the reference
  semantics destroys its own.  Where a residue takes or makes a token the
  handle counts at exit are not compared (`LoweredRun.token_residue`): the
  lowering's handle discipline runs through an op it never lowered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, Any, cast

from xdsl.interpreter import PythonValues

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, Kernel, KernelArg, MemRefView, Param
from gpu_alloc_verify.oracles.llvm_values import (
    Agg,
    LLVMValue,
    Unsupported,
    prop,
    signed,
    type_name,
)
from gpu_alloc_verify.oracles.mgpu_calls import RawCall
from gpu_alloc_verify.oracles.runtime import memset_pattern
from gpu_alloc_verify.oracles.source_interp import element_bytes, row_major_strides
from gpu_alloc_verify.verify.ir.attrs import LaunchOperands, launch_operands
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue
from gpu_alloc_verify.verify.ir.types import memref_text

if TYPE_CHECKING:
    from xdsl.ir import Attribute

    from gpu_alloc_verify.oracles.lowered_interp import _Machine



MAX_THREADS = 1 << 20  # threads one launch may run (sizes are unsigned here)


@dataclass(frozen=True)
class ResidueToken:
    """The token of a residual async op: the stream its work was queued on."""

    stream: int
    op: str


def memref_shape(t: Attribute | str) -> tuple[tuple[int | None, ...], str]:
    """(dims, element type) of a memref type, by its printed form."""
    parsed = memref_text(type_name(t))
    if parsed is None:
        raise Unsupported(f"not a memref type: {type_name(t)}")
    return parsed.dims, parsed.elem


def descriptor(ptr: int, sizes: Sequence[int]) -> Agg:
    """The memref descriptor of a fresh, contiguous buffer."""
    items: dict[tuple[int, ...], LLVMValue] = {(0,): ptr, (1,): ptr, (2,): 0}
    for d, (size, stride) in enumerate(zip(sizes, row_major_strides(tuple(sizes)),
                                           strict=True)):
        items[(3, d)] = size
        items[(4, d)] = stride
    return Agg(items)


def view_of(desc: object, rank: int, elem: str) -> MemRefView:
    if not isinstance(desc, Agg):
        raise Unsupported("a memref operand that is no descriptor")
    sizes = tuple(desc.int_at((3, d)) for d in range(rank))
    strides = tuple(desc.int_at((4, d)) for d in range(rank))
    return MemRefView(desc.int_at((1,)), desc.int_at((2,)), sizes,
                      strides, elem)


def kernel_args(params: Sequence[Param], values: Sequence[LLVMValue]) -> list[KernelArg]:
    """Kernel arguments from launch operands: a memref parameter takes one
    descriptor, or its 3 + 2 * rank expanded fields, or (the bare-pointer
    convention, `use-bare-pointers-for-kernels`) its aligned pointer alone;
    a scalar one value."""
    expanded = sum(1 if p.kind == "scalar" else 3 + 2 * p.rank for p in params)
    if len(values) == len(params) != expanded and not any(isinstance(v, Agg) for v in values):
        return [_bare(p, v) for p, v in zip(params, values, strict=True)]
    out: list[KernelArg] = []
    it = iter(values)
    for p in params:
        try:
            first = next(it)
        except StopIteration:
            raise Unsupported("fewer launch operands than kernel parameters") from None
        if p.kind == "scalar":
            out.append(cast(KernelArg, first))  # as the operand holds it (undef: None)
        elif isinstance(first, Agg):
            out.append(view_of(first, p.rank, p.elem))
        else:
            fields = [first, *(next(it, None) for _ in range(2 + 2 * p.rank))]
            if any(f is None for f in fields):
                raise Unsupported("a memref operand with too few descriptor fields")
            nums = cast("list[int | float]", fields)  # an aggregate among them: int() raises
            sizes = tuple(int(f) for f in nums[3 : 3 + p.rank])
            strides = tuple(int(f) for f in nums[3 + p.rank :])
            out.append(MemRefView(int(nums[1]), int(nums[2]), sizes, strides, p.elem))
    if next(it, None) is not None:
        raise Unsupported("more launch operands than kernel parameters")
    return out


def _bare(p: Param, value: LLVMValue) -> KernelArg:
    """A kernel argument under the bare-pointer convention: a memref is its
    aligned pointer, its static shape row-major from offset 0 (the only
    memrefs the convention admits)."""
    if p.kind == "scalar":
        return cast(KernelArg, value)
    dims, elem = memref_shape(p.type)
    if any(d is None for d in dims):
        raise Unsupported(f"a bare pointer for the dynamically shaped {p.type}")
    sizes = tuple(cast("int", d) for d in dims)
    return MemRefView(int(cast("int", value)), 0, sizes, row_major_strides(sizes), elem)


def _launch_parts(op: IROp) -> LaunchOperands:
    parts = launch_operands(op)
    if parts is None:
        raise Unsupported("gpu.launch_func without the operand segments of LLVM 16-22")
    return parts


def _sizes(m: _Machine, parts: LaunchOperands) -> list[int]:
    return [int(m.v(s)) if s is not None else 1 for s in parts.sizes]


def _kernel(m: _Machine, op: IROp) -> Kernel:
    full = full_symbol(op)
    symbol = full.rsplit("::", 1)[-1]
    # By module and function first: outlining names every kernel function
    # after its host function, in modules of their own.
    kernel = m.kernels.get(full) or m.kernels.get(symbol)
    if kernel is None:
        raise Unsupported(f"kernel @{symbol} is not one the interpreter was given")
    return kernel


def full_symbol(op: IROp) -> str:
    """"module::function" of the kernel a launch names."""
    return str(prop(op, "kernel")).replace("@", "").replace('"', "")


def _token_type(v: IRValue) -> bool:
    return "gpu.async.token" in type_name(v.type)


# -- gpu.launch_func -----------------------------------------------------------
def launch_func(m: _Machine, op: IROp) -> PythonValues:
    """The op's result values (its token, where it has one)."""
    if any(_token_type(v) for v in [*op.operands, *op.results]):
        return residue_launch(m, op)
    parts = _launch_parts(op)
    if not parts.has_object:  # LLVM 16 lowers launches itself: this one is unknown
        raise Unsupported("gpu.launch_func without an async-object segment")
    sizes = _sizes(m, parts)
    kernel = _kernel(m, op)
    args = kernel_args(kernel.params, [m.v(x) for x in parts.operands])
    loc = m.loc_of(op)
    m.rt.set_location(loc)
    if parts.stream is not None:
        _launch(m, kernel, sizes, args, int(m.v(parts.stream) or 0), loc)
        return ()
    stream = m.rt.stream_create()
    m.raw.append(RawCall("mgpuStreamCreate", (), "", stream, loc))
    _launch(m, kernel, sizes, args, stream, loc)
    m.rt.stream_synchronize(stream)
    m.raw.append(RawCall("mgpuStreamSynchronize", (stream,), "p", None, loc))
    m.rt.stream_destroy(stream)
    m.raw.append(RawCall("mgpuStreamDestroy", (stream,), "p", None, loc))
    return ()


def _launch(m: _Machine, kernel: Kernel, sizes: list[int], args: list[KernelArg],
            stream: int, loc: str | None) -> None:
    # mgpuLaunchKernel takes intptr_t sizes: a negative one stays negative (the
    # runtime refuses it, as it refuses the source's).
    sizes = [signed(n, 64) for n in sizes]
    grid = (sizes[0], sizes[1], sizes[2])
    block = (sizes[3], sizes[4], sizes[5])
    if prod(max(n, 0) for n in sizes) > MAX_THREADS:  # each thread is interpreted in Python
        raise Unsupported(f"a launch of {prod(sizes)} threads (past {MAX_THREADS})")
    m.rt.launch(kernel, grid, block, args, stream)
    m.raw.append(RawCall("launch", (*grid, *block, stream), "iiiiiip", None, loc))


# -- residues --------------------------------------------------------------------
def _stream_after(m: _Machine, deps: Sequence[Any]) -> int:
    """A fresh stream that first waits for each dependency's work."""
    m.token_residue = m.token_residue or bool(deps)
    s = m.rt.stream_create()
    for d in deps:
        e = m.rt.event_create()
        m.rt.event_record(e, d.stream if isinstance(d, ResidueToken) else int(d or 0))
        m.rt.stream_wait_event(s, e)
        m.rt.event_destroy(e)
    return s


def _finish(m: _Machine, op: IROp, s: int, async_: bool) -> ResidueToken | None:
    """An async residue's token: its stream and an event after the op; a
    synchronous residue is waited for."""
    if async_:
        m.token_residue = True
        m.residue_streams.add(s)
        return ResidueToken(s, m.loc_of(op) or "?")
    m.rt.stream_synchronize(s)
    m.rt.stream_destroy(s)
    return None


def _split_deps(m: _Machine, op: IROp) -> tuple[list[Any], list[Any], bool]:
    """(dependency values, the other operands, whether the op is async)."""
    deps = [m.v(x) for x in op.operands if _token_type(x)]
    rest = [x for x in op.operands if not _token_type(x)]
    return deps, rest, any(_token_type(r) for r in op.results)


def _wait(m: _Machine, op: IROp) -> PythonValues:
    m.rt.set_location(m.loc_of(op))
    deps, _, async_ = _split_deps(m, op)
    if async_:
        return (_finish(m, op, _stream_after(m, deps), True),)
    for d in deps:  # the host waits for each dependency's work
        m.rt.stream_synchronize(d.stream if isinstance(d, ResidueToken) else int(d or 0))
    return ()


def _alloc(m: _Machine, op: IROp) -> PythonValues:
    m.rt.set_location(m.loc_of(op))
    deps, rest, async_ = _split_deps(m, op)
    s = _stream_after(m, deps)
    dims, elem = memref_shape(op.results[0].type)
    dyn = iter(int(m.v(x)) for x in rest)
    sizes = [d if d is not None else next(dyn) for d in dims]
    nbytes = prod(sizes) * ELEM_BYTES[elem]
    shared = prop(op, "hostShared") is not None
    ptr = m.rt.mem_alloc(nbytes, s, shared) if async_ else m.rt.mem_alloc_sync(nbytes, shared)
    return descriptor(ptr, sizes), _finish(m, op, s, async_)


def _on_stream(run: Callable[[_Machine, list[IRValue], int], None]) -> Residue:
    """A residue whose work is queued on its own stream after its
    dependencies: `run(m, operands but tokens, stream)`; its token, if async."""
    def residue(m: _Machine, op: IROp) -> PythonValues:
        m.rt.set_location(m.loc_of(op))
        deps, rest, async_ = _split_deps(m, op)
        s = _stream_after(m, deps)
        run(m, rest, s)
        return (_finish(m, op, s, async_),)
    return residue


def _dealloc(m: _Machine, rest: list[IRValue], s: int) -> None:
    dims, elem = memref_shape(rest[0].type)
    m.rt.mem_free(view_of(m.v(rest[0]), len(dims), elem).ptr, s)


def _memset(m: _Machine, rest: list[IRValue], s: int) -> None:
    dims, elem = memref_shape(rest[0].type)
    view = view_of(m.v(rest[0]), len(dims), elem)
    memset_pattern(m.rt, _address(view), _pattern(m.v(rest[1]), elem), prod(view.sizes), s)


def _memcpy(m: _Machine, rest: list[IRValue], s: int) -> None:
    dims, elem = memref_shape(rest[0].type)
    dst = view_of(m.v(rest[0]), len(dims), elem)
    src = view_of(m.v(rest[1]), len(dims), elem)
    m.rt.memcpy(_address(dst), _address(src), prod(dst.sizes) * ELEM_BYTES[elem], s)


Residue = Callable[["_Machine", IROp], PythonValues]
# Each residue, run with its source meaning (its result values returned); the
# names are the op table's converted ops (`op_specs.CALL_PATTERN_OPS`).
RESIDUES: dict[str, Residue] = {
    "gpu.wait": _wait,
    "gpu.alloc": _alloc,
    "gpu.dealloc": _on_stream(_dealloc),
    "gpu.memset": _on_stream(_memset),
    "gpu.memcpy": _on_stream(_memcpy),
}
# The gpu ops run here (`oracles.lowered_xdsl.gpu_ops` registers them).
HANDLED_OPS: frozenset[str] = frozenset({*RESIDUES, "gpu.launch_func"})


def residue_launch(m: _Machine, op: IROp) -> PythonValues:
    deps, _, async_ = _split_deps(m, op)
    parts = _launch_parts(op)
    sizes = _sizes(m, parts)
    kernel = _kernel(m, op)
    args = kernel_args(kernel.params, [m.v(x) for x in parts.operands])
    s = _stream_after(m, deps)
    m.rt.launch(kernel, (sizes[0], sizes[1], sizes[2]), (sizes[3], sizes[4], sizes[5]), args,
                s)
    return (_finish(m, op, s, async_),)


def release(m: _Machine) -> None:
    """Destroy what residues made and the lowered code left alive."""
    for stream in sorted(m.residue_streams):
        if m.rt.is_live(stream):
            m.rt.stream_destroy(stream)


def event_use(m: _Machine, callee: str, args: list[int]) -> bool:
    """A residue's stream passed where an event goes, read favourably (see the
    module docstring); False when `callee(args)` is no such use."""
    if callee == "mgpuEventSynchronize" and args[0] in m.residue_streams:
        m.rt.stream_synchronize(args[0])
    elif callee == "mgpuEventDestroy" and args[0] in m.residue_streams:
        pass  # the stream lives on for its other users; released at the end
    elif callee == "mgpuStreamWaitEvent" and len(args) == 2 and args[1] in m.residue_streams:
        e = m.rt.event_create()
        m.rt.event_record(e, args[1])
        m.rt.stream_wait_event(args[0], e)
        m.rt.event_destroy(e)
    elif callee == "mgpuEventRecord" and args and args[0] in m.residue_streams:
        raise Unsupported("lowered code records an event into a leftover op's token")
    else:
        return False
    return True


def _address(view: MemRefView) -> int:
    return view.ptr + view.offset * ELEM_BYTES[view.elem]


def _pattern(value: Any, elem: str) -> bytes:
    if elem.startswith(("f", "bf")):
        return element_bytes(value, elem)  # type: ignore[arg-type]  # packs a float too
    return element_bytes(int(value), elem)
