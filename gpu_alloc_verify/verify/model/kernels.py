"""The kernel catalogue: the few fixed kernel shapes generated programs launch.

A shape is a `gpu.func ... kernel` over buffers that all have one memref
type (rank 1 or 2, any element type, any memory space) and at most one
scalar of the element type.  Thread `(i, j)`, with `i = block_id.x *
block_dim.x + thread_id.x` and `j = thread_id.y`, touches element `[i]` (or
`[i, j]`) when it lies inside the buffer (an `scf.if` over `memref.dim`), so
a launch of any size is safe and a launch of at least the buffer's size
covers it.  Each shape says which buffers it reads and which it writes: the
facts a later interpreter (and a CUDA C rendering) needs, and what the
generator's token discipline orders.

The catalogue is closed and small on purpose: `SHAPES` is all there is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_alloc_verify.verify.model.program import FLOAT_TYPES, KernelRef, MemRefType


@dataclass(frozen=True)
class Shape:
    name: str
    buffers: tuple[str, ...]  # parameter names of the buffer operands, in order
    reads: tuple[int, ...]  # indices into `buffers`
    writes: tuple[int, ...]
    scalar: str | None  # parameter name of the scalar operand, if any
    body: str  # the in-bounds body; {idx} {M} {T} {add} {mul} are filled in

    def describe(self) -> str:
        """`scale(buf, factor)`: the shape's signature, for people."""
        params = [*self.buffers, *([self.scalar] if self.scalar else [])]
        return f"{self.name}({', '.join(params)})"


SHAPES: dict[str, Shape] = {
    shape.name: shape
    for shape in (
        Shape("fill", ("out",), (), (0,), "value",
              "memref.store %value, %out[{idx}] : {M}"),
        Shape("scale", ("buf",), (0,), (0,), "factor",
              "%x = memref.load %buf[{idx}] : {M}\n"
              "%y = {mul} %x, %factor : {T}\n"
              "memref.store %y, %buf[{idx}] : {M}"),
        Shape("add", ("a", "b", "out"), (0, 1), (2,), None,
              "%x = memref.load %a[{idx}] : {M}\n"
              "%y = memref.load %b[{idx}] : {M}\n"
              "%z = {add} %x, %y : {T}\n"
              "memref.store %z, %out[{idx}] : {M}"),
        Shape("copy", ("src", "dst"), (0,), (1,), None,
              "%x = memref.load %src[{idx}] : {M}\n"
              "memref.store %x, %dst[{idx}] : {M}"),
    )
}
SHAPE_NAMES = tuple(SHAPES)


def _arith(elem: str, op: str) -> str:
    return f"arith.{op}{'f' if elem in FLOAT_TYPES else 'i'}"


def _prologue(kernel: KernelRef) -> list[str]:
    """Thread indices and the in-bounds condition `%in`."""
    t = kernel.type
    first = SHAPES[kernel.shape].buffers[0]
    lines = [
        "%c0 = arith.constant 0 : index",
        "%bid = gpu.block_id x",
        "%bdim = gpu.block_dim x",
        "%tid = gpu.thread_id x",
        "%base = arith.muli %bid, %bdim : index",
        "%i = arith.addi %base, %tid : index",
        f"%n = memref.dim %{first}, %c0 : {t}",
        "%in = arith.cmpi ult, %i, %n : index",
    ]
    if len(t.shape) == 2:
        lines += [
            "%c1 = arith.constant 1 : index",
            "%j = gpu.thread_id y",
            f"%m = memref.dim %{first}, %c1 : {t}",
            "%jn = arith.cmpi ult, %j, %m : index",
            "%in2 = arith.andi %in, %jn : i1",
        ]
    return lines


def kernel_text(kernel: KernelRef, indent: str = "    ") -> str:
    """The `gpu.func` of `kernel`, one op a line, indented by `indent`."""
    shape = SHAPES[kernel.shape]
    t = kernel.type
    params = [f"%{b}: {t}" for b in shape.buffers]
    if shape.scalar:
        params.append(f"%{shape.scalar}: {t.elem}")
    idx = "%i" if len(t.shape) == 1 else "%i, %j"
    cond = "%in" if len(t.shape) == 1 else "%in2"
    body = shape.body.format(idx=idx, M=t, T=t.elem, add=_arith(t.elem, "add"),
                             mul=_arith(t.elem, "mul"))
    inner = indent + "  "
    lines = [f"{indent}gpu.func @{kernel.name}({', '.join(params)}) kernel {{"]
    lines += [inner + line for line in _prologue(kernel)]
    lines.append(f"{inner}scf.if {cond} {{")
    lines += [inner + "  " + line for line in body.splitlines()]
    lines += [f"{inner}}}", f"{inner}gpu.return", f"{indent}}}"]
    return "\n".join(lines)


def kernel_ref(shape: str, type_: MemRefType) -> KernelRef:
    if shape not in SHAPES:
        raise KeyError(f"unknown kernel shape {shape!r}; the catalogue has "
                       f"{', '.join(SHAPE_NAMES)}")
    return KernelRef(shape, type_)


# Element types a catalogue kernel's buffers may have (its name spells one).
KERNEL_ELEMENTS = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "index")
_MANGLED = re.compile(r"((?:(?:\d+|D)x)*)([a-z]+\d*)(?:_s(\d+))?")


def parse_kernel_name(name: str) -> KernelRef | None:
    """The catalogue entry a kernel's name is (`<shape>_<MemRefType.mangled()>`,
    "scale_4xf32", "add_Dx4xbf16_s1"), or None.  Only the function's own
    name: no `@`, no `kernels::`."""
    shape, _, mangled = name.partition("_")
    m = _MANGLED.fullmatch(mangled)
    if shape not in SHAPES or m is None:
        return None
    dims = tuple(None if d == "D" else int(d) for d in m.group(1).split("x") if d)
    if not 1 <= len(dims) <= 2 or m.group(2) not in KERNEL_ELEMENTS:
        return None
    space = int(m.group(3)) if m.group(3) is not None else None
    ref = KernelRef(shape, MemRefType(dims, m.group(2), space))
    return ref if ref.name == name else None


def kernel_params(ref: KernelRef) -> tuple[MemRefType | str, ...]:
    """The parameter types of the catalogue kernel `ref`, in order: its buffers'
    memref type, then its scalar's element type if the shape has one."""
    shape = SHAPES[ref.shape]
    return (ref.type,) * len(shape.buffers) + ((ref.type.elem,) if shape.scalar else ())
